package experiment

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/glob"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/stats"
)

// corpus is the cases of each split, sorted by canonical id.
type corpus struct {
	splits []string               // declared splits, in order
	cases  map[string][]*lux.Case // by split
	// labels are a grader corpus's labels by id; its cases are then one
	// per label (ID the label's, Cluster the labelled run's case, Path
	// the run's directory).
	labels map[string]*labelled
}

// caseSuffix is how case files are named in a directory of cases.
const caseSuffix = ".case.json"

// selectCases reads the cases of every split and checks the rules that
// need them.
func (c *Campaign) selectCases(p *lux.Problems) *corpus {
	corp := &corpus{cases: map[string][]*lux.Case{}}
	loaded := map[string]*lux.Case{} // by file
	splitOf := map[string]string{}   // case id → split
	clusterOf := map[string]string{} // cluster → split
	behaviourOf := map[string]string{}
	fileOf := map[string]string{} // case id → file
	for _, s := range c.Splits.selectors() {
		at := "splits." + s.name
		corp.splits = append(corp.splits, s.name)
		files, err := c.matchFiles(s.sel.Patterns)
		if err != nil {
			p.Add(at+".patterns", err.Error())
			continue
		}
		var cases []*lux.Case
		for _, f := range files {
			lc, ok := loaded[f]
			if !ok {
				var err error
				if lc, err = lux.ReadCase(f, (*lux.Case).Validate); err != nil {
					p.Add(at, err.Error())
					continue
				}
				loaded[f] = lc
			}
			if len(s.sel.Tags) > 0 && !hasAnyTag(lc, s.sel.Tags) {
				continue
			}
			id := lc.CanonicalID()
			if prev, ok := fileOf[id]; ok && prev != f {
				p.AddFix(at, fmt.Sprintf("case id %q of %s is also the id of %s", id, f, prev), "give each case its own id")
				continue
			}
			fileOf[id] = f
			if other, ok := splitOf[id]; ok {
				p.AddFix(at, fmt.Sprintf("case %q is also in split %s", id, other), "a case belongs to one split only; narrow the patterns or tags")
				continue
			}
			splitOf[id] = s.name
			if lc.Cluster != "" {
				if other, ok := clusterOf[lc.Cluster]; ok && other != s.name {
					p.AddFix(at, fmt.Sprintf("cluster %q of case %q is also in split %s", lc.Cluster, id, other),
						"a cluster is one independent unit: keep all its cases in one split")
				} else {
					clusterOf[lc.Cluster] = s.name
				}
			}
			if h, err := behaviourHash(lc); err != nil {
				p.Add(at, fmt.Sprintf("case %q: %v", id, err))
			} else if prev, ok := behaviourOf[h]; ok {
				p.AddFix(at, fmt.Sprintf("case %q has the same prompt, fixtures and assertions as case %q (split %s)", id, prev, splitOf[prev]),
					"a case repeated across splits leaks what is measured; change or drop one")
			} else {
				behaviourOf[h] = id
			}
			for _, name := range sortedKeys(c.Profiles) {
				// An arm runs its profile's driver and answerer, which
				// replace the case's own (orchestrator.Choose) and are
				// what the ledger identifies: a case that names others
				// would not run them.
				pr := c.Profiles[name]
				for _, k := range []struct {
					kind     string
					own, arm *lux.PluginRef
				}{{"driver", lc.Driver, pr.Driver}, {"answerer", lc.Answerer, pr.Answerer}} {
					if ch, _ := orchestrator.Choose(k.own, nil, k.arm); ch.Replaced != nil {
						p.AddFix(at, fmt.Sprintf("case %q names %s %s but profile %s runs %s", id, k.kind, refText(k.own), name, refText(k.arm)),
							fmt.Sprintf("leave the %s to the profiles (remove it from the case), or name exactly the profile's", k.kind))
					}
				}
			}
			cases = append(cases, lc)
		}
		if len(cases) == 0 && len(files) > 0 {
			p.AddFix(at, "no case carries the tags "+strings.Join(s.sel.Tags, ", "), "check the tags")
		} else if len(files) == 0 {
			p.AddFix(at+".patterns", "match no case file", "give paths or globs of *.case.json files, relative to the campaign file")
		}
		slices.SortFunc(cases, func(a, b *lux.Case) int { return strings.Compare(a.CanonicalID(), b.CanonicalID()) })
		corp.cases[s.name] = cases
	}
	for i, k := range c.Objectives.Constraints {
		if k.Confidence == nil || k.Confidence.Method != stats.Wilson {
			continue
		}
		if slices.ContainsFunc(corp.cases[k.Split], func(lc *lux.Case) bool { return lc.Cluster != "" }) {
			p.Add(fmt.Sprintf("objectives.constraints[%d].confidence.method", i), wilsonClustered)
		}
	}
	return corp
}

// matchFiles returns the case files named by patterns: a file, a
// directory (every *.case.json below it, dot directories and node_modules
// skipped), or a glob relative to the campaign's directory.
func (c *Campaign) matchFiles(patterns []string) ([]string, error) {
	var out []string
	for _, pat := range patterns {
		full := c.resolve(filepath.FromSlash(pat))
		if fi, err := os.Stat(full); err == nil {
			if !fi.IsDir() {
				out = append(out, full)
				continue
			}
			found, err := walkMatching(full, func(rel string) bool { return strings.HasSuffix(rel, caseSuffix) }, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
			continue
		}
		g, err := glob.Compile(filepath.ToSlash(pat))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", pat, err)
		}
		found, err := walkMatching(c.resolve("."), g.Match, g.Descend)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// walkMatching lists the regular files below dir whose slash path
// relative to dir satisfies match, entering only directories descend
// accepts (nil: all but dot directories and node_modules).
func walkMatching(dir string, match, descend func(rel string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path == dir {
				return nil
			}
			if descend == nil {
				if strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
			} else if !descend(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && match(rel) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return out, nil
}

func hasAnyTag(c *lux.Case, tags []string) bool {
	return slices.ContainsFunc(c.Tags, func(t string) bool {
		return slices.ContainsFunc(tags, func(want string) bool { return strings.EqualFold(t, want) })
	})
}

// behaviourHash identifies what a case measures: its prompt, persona,
// requirements, assertions (without ids and names) and fixtures' content.
// Two cases with the same hash in two splits are a leak.
func behaviourHash(c *lux.Case) (string, error) {
	type assertion struct {
		Type      string         `json:"type"`
		Weight    float64        `json:"weight"`
		Threshold float64        `json:"threshold"`
		Config    map[string]any `json:"config"`
	}
	as := make([]assertion, len(c.Assertions))
	for i, a := range c.Assertions {
		as[i] = assertion{a.Type, a.EffectiveWeight(), a.Threshold, a.Config}
	}
	fixtures := c.Fixtures
	if dir := c.FixturesDir(); dir != "" && !strings.Contains(dir, "{{") {
		h, err := hashTree(dir, nil)
		if err != nil {
			return "", fmt.Errorf("fixtures: %w", err)
		}
		fixtures = h
	}
	return digest.Value(map[string]any{
		"prompt": c.Prompt, "persona": c.Persona, "requires": c.Requires, "assertions": as, "fixtures": fixtures,
	})
}

// refText is a plugin reference as a message shows it: its name, and its
// config when it has one.
func refText(r *lux.PluginRef) string {
	raw, err := lux.ConfigJSON(r.Config)
	if err != nil || len(raw) == 0 || string(raw) == "null" {
		return fmt.Sprintf("%q", r.Name)
	}
	return fmt.Sprintf("%q %s", r.Name, raw)
}
