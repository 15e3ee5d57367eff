package experiment

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/glob"
	"github.com/luxeval/lux/project"
	"github.com/luxeval/lux/stats"
)

// FileSuffix is how campaign files are named.
const FileSuffix = ".experiment.json"

// ErrInvalidCampaign reports a campaign that fails validation.
var ErrInvalidCampaign = errors.New("experiment: invalid campaign")

// Load reads a campaign file strictly (unknown fields are errors, each
// naming the known ones), resolves its paths against the file's
// directory and validates it, cases included (see Validate). Every
// problem is reported at once with its field path.
func Load(path string) (*Campaign, error) { return LoadWithProject(path, nil) }

// LoadWithProject is Load with the profiles that name a profile of the
// project file f (Profile.Project) filled from it before validation: the
// project profile's driver, answerer and environment, else the file's
// defaults, where the campaign's profile sets none of its own. A name f
// does not declare is a problem at profiles.NAME.project. f may be nil
// (no project file).
func LoadWithProject(path string, f *project.File) (*Campaign, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: campaign %s: %w", path, err)
	}
	c := &Campaign{}
	if err := lux.DecodeConfig(data, c); err != nil {
		var p lux.Problems
		p.Merge("", err)
		return nil, fmt.Errorf("%s: %w", path, invalid(&p))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: campaign %s: %w", path, err)
	}
	c.Path, c.Dir = abs, filepath.Dir(abs)
	if err := c.useProject(f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks every field and cross-field rule of the campaign and
// reads its cases: the subject root and globs, the profiles, the splits
// (each must select a case; a case, and a cluster, belong to one split
// only; two cases with the same behaviour — prompt, fixtures, assertions —
// in different splits are a leak), the variants, the constraints (known
// metrics, profiles and splits; Wilson and Hoeffding only on metrics in
// [0, 1]; Wilson refused where cases carry clusters or run more than
// once; a test split needs a test constraint) and the budget. The error
// wraps ErrInvalidCampaign and lists every problem with its field path.
func (c *Campaign) Validate() error {
	_, err := c.prepare()
	return err
}

// invalidError is the problems of a campaign.
type invalidError struct{ list error }

func (e *invalidError) Error() string   { return "experiment: invalid campaign:\n" + e.list.Error() }
func (e *invalidError) Unwrap() []error { return []error{ErrInvalidCampaign, e.list} }

func invalid(p *lux.Problems) error { return &invalidError{list: p.Err(nil)} }

var variantID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// BaselineID is the candidate id of the subject as it is.
const BaselineID = "baseline"

// prepare validates the campaign and selects its cases.
func (c *Campaign) prepare() (*corpus, error) {
	var p lux.Problems
	d := c.withDefaults()
	if strings.TrimSpace(d.ID) == "" {
		p.AddFix("id", "required", "name the campaign, e.g. \"skill-wording\"")
	}
	d.checkSubject(&p)
	if d.Grader != nil {
		d.checkGrader(&p)
	} else if len(d.Profiles) == 0 {
		p.AddFix("profiles", "required", `declare at least one, e.g. {"default": {"driver": {"name": "claude-code"}}}`)
	}
	for _, name := range sortedKeys(d.Profiles) {
		at := "profiles." + name
		if strings.TrimSpace(name) == "" {
			p.Add(at, "a profile needs a name")
		}
		pr := d.Profiles[name]
		if pr.Project != "" && pr.Driver == nil {
			p.AddFix(at+".project", fmt.Sprintf("names the project profile %q, which was not applied", pr.Project),
				"load the campaign with experiment.LoadWithProject (lux experiment does, from lux.json or -config), or give the profile a driver")
		} else if pr.Driver == nil || strings.TrimSpace(pr.Driver.Name) == "" {
			p.AddFix(at+".driver", "required", "name the driver the arm runs, e.g. {\"name\": \"claude-code\"}")
		}
		if pr.Answerer != nil && strings.TrimSpace(pr.Answerer.Name) == "" {
			p.AddFix(at+".answerer.name", "required", "name a registered answerer")
		}
	}
	if d.Splits.Validation == nil {
		p.AddFix("splits.validation", "required", `select the cases, e.g. {"patterns": ["cases/validation"]}`)
	}
	for _, s := range d.Splits.selectors() {
		at := "splits." + s.name
		if len(s.sel.Patterns) == 0 && d.Grader == nil {
			p.AddFix(at+".patterns", "required", "give paths or globs of case files, relative to the campaign file")
		}
		for i, pat := range s.sel.Patterns {
			if _, err := glob.Compile(filepath.ToSlash(pat)); err != nil && !filepath.IsAbs(pat) {
				p.Add(fmt.Sprintf("%s.patterns[%d]", at, i), err.Error())
			}
		}
	}
	if d.Repetitions.Search < 0 || c.Repetitions.Promotion < 0 {
		p.Add("repetitions", "must not be negative")
	}
	d.checkVariants(&p)
	d.checkOptimizer(&p)
	d.checkObjectives(&p)
	checkSequential(&p, c, &d)
	b := c.Budget
	if b.MaxCandidates < 0 || b.MaxRuns < 0 || b.MaxJudgeCalls < 0 || b.MaxTokens < 0 || b.MaxCostUSD < 0 || b.MaxWallTime < 0 ||
		math.IsNaN(b.MaxCostUSD) {
		p.AddFix("budget", "limits must not be negative", "leave a limit out for its default")
	}
	if n := 1 + len(d.Variants); n > d.Budget.MaxCandidates {
		p.AddFix("budget.maxCandidates", fmt.Sprintf("the campaign has %d candidates (the baseline and %d variants), more than %d", n, len(d.Variants), d.Budget.MaxCandidates),
			"raise maxCandidates or drop variants")
	}
	if p.Len() > 0 {
		return nil, invalid(&p)
	}
	var corp *corpus
	if d.Grader != nil {
		corp = d.selectLabels(&p)
	} else {
		corp = d.selectCases(&p)
	}
	if p.Len() > 0 {
		return nil, invalid(&p)
	}
	return corp, nil
}

func (c *Campaign) root() string {
	if filepath.IsAbs(c.Subject.Root) || c.Dir == "" {
		return filepath.Clean(c.Subject.Root)
	}
	return filepath.Join(c.Dir, c.Subject.Root)
}

func (c *Campaign) resolve(rel string) string {
	if filepath.IsAbs(rel) || c.Dir == "" {
		return rel
	}
	return filepath.Join(c.Dir, rel)
}

func (c *Campaign) checkSubject(p *lux.Problems) {
	s := c.Subject
	if strings.TrimSpace(s.Root) == "" {
		p.AddFix("subject.root", "required", "the directory of the files you ship, relative to the campaign file")
	} else if fi, err := os.Stat(c.root()); err != nil || !fi.IsDir() {
		p.AddFix("subject.root", fmt.Sprintf("%s is not a directory", c.root()), "a relative root is relative to the campaign file")
	}
	if len(s.Mutable) == 0 {
		p.AddFix("subject.mutable", "required", "give globs of the files a candidate may change, e.g. [\"CLAUDE.md\"]")
	}
	for i, g := range s.Mutable {
		if _, err := glob.Compile(g); err != nil {
			p.Add(fmt.Sprintf("subject.mutable[%d]", i), err.Error())
		}
	}
	for i, g := range s.Exclude {
		if _, err := glob.Compile(g); err != nil {
			p.Add(fmt.Sprintf("subject.exclude[%d]", i), err.Error())
		}
	}
	for i, v := range s.Validate {
		at := fmt.Sprintf("subject.validate[%d]", i)
		if strings.TrimSpace(v.Command) == "" {
			p.AddFix(at+".command", "required", "name the program to run, e.g. \"go\"")
		}
		if v.Timeout < 0 {
			p.Add(at+".timeout", "must not be negative")
		}
		for j, arg := range v.Args {
			if why := unsafeArg(arg); why != "" {
				p.AddFix(fmt.Sprintf("%s.args[%d]", at, j), why, "a validation command works on the candidate's tree: give paths relative to it")
			}
		}
	}
}

// unsafeArg says why a validation argument could reach outside the
// candidate's tree: a URL, an absolute path or one that climbs out with
// "..", also as the value of --flag=VALUE, -Xvalue or @file.
func unsafeArg(arg string) string {
	values := []string{arg}
	if i := strings.IndexAny(arg, "=:"); strings.HasPrefix(arg, "-") && i > 0 {
		values = append(values, arg[i+1:])
	}
	if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && len(arg) > 2 {
		values = append(values, arg[2:])
	}
	if rest, ok := strings.CutPrefix(arg, "@"); ok {
		values = append(values, rest)
	}
	for _, v := range values {
		switch {
		case strings.Contains(v, "://") || strings.HasPrefix(v, "file:"):
			return fmt.Sprintf("%q names a URL", arg)
		case filepath.IsAbs(v) || strings.HasPrefix(v, "~") || (len(v) > 1 && v[1] == ':' && strings.ContainsAny(v[:1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) || strings.HasPrefix(v, `\\`):
			return fmt.Sprintf("%q is an absolute path", arg)
		case v == ".." || strings.HasPrefix(v, "../") || strings.Contains(v, "/../") || strings.HasSuffix(v, "/.."):
			return fmt.Sprintf("%q climbs out of the candidate's tree", arg)
		}
	}
	return ""
}

func (c *Campaign) checkVariants(p *lux.Problems) {
	seen := map[string]int{}
	for i, v := range c.Variants {
		at := fmt.Sprintf("variants[%d]", i)
		switch {
		case v.ID == BaselineID:
			p.AddFix(at+".id", `"baseline" is the subject as it is`, "give the variant another id")
		case len(v.ID) > 120 || !variantID.MatchString(v.ID):
			p.AddFix(at+".id", fmt.Sprintf("%q is not a valid id", v.ID), "use lower-case letters, digits, - and _, starting with a letter or digit")
		}
		if j, dup := seen[v.ID]; dup {
			p.AddFix(at+".id", fmt.Sprintf("duplicate id %q", v.ID), fmt.Sprintf("variants[%d] has it too", j))
		} else {
			seen[v.ID] = i
		}
		if len(v.Files) == 0 {
			p.AddFix(at+".files", "required", "give the new contents of at least one mutable file")
		}
		for _, f := range sortedKeys(v.Files) {
			if strings.ContainsRune(v.Files[f], 0) {
				p.Add(at+".files."+f, "contains a NUL byte")
			}
		}
	}
}

func (c *Campaign) checkObjectives(p *lux.Problems) {
	splits := map[string]bool{}
	for _, s := range c.Splits.selectors() {
		splits[s.name] = true
	}
	checkRef := func(at, metric, profile, split string) {
		switch {
		case c.Grader != nil && agreementCoefficient(metric):
			p.AddFix(at+".metric", fmt.Sprintf("%q: kappa and alpha are not gates (they are not per-unit values to pair and cluster; see docs/labels-and-hooks.md)", metric),
				"gate on judge.agreementRate, judge.falsePositiveRate, judge.falseNegativeRate or judge.abstentionRate, and read kappa and alpha in the report's agreement section")
		case !knownMetric(metric) && !(c.Grader != nil && slices.Contains(GraderMetrics, metric)):
			p.AddFix(at+".metric", fmt.Sprintf("unknown metric %q", metric),
				"use quality.passRate, quality.score, subject.bytes or a run metric such as agent.total, cost.usd, durationMs, interrupts.ask, toolCalls")
		}
		if _, ok := c.Profiles[profile]; profile != "" && !ok {
			p.AddFix(at+".profile", fmt.Sprintf("unknown profile %q", profile), "declared profiles: "+strings.Join(sortedKeys(c.Profiles), ", "))
		}
		if !splits[split] {
			p.AddFix(at+".split", fmt.Sprintf("unknown split %q", split), "the campaign declares: "+strings.Join(sortedKeys(splits), ", "))
		}
	}
	testConstraint := false
	for i, k := range c.Objectives.Constraints {
		at := fmt.Sprintf("objectives.constraints[%d]", i)
		checkRef(at, k.Metric, k.Profile, k.Split)
		if k.Split == SplitTest && k.Metric != MetricSubjectBytes {
			testConstraint = true
		}
		if k.Min == nil && k.Max == nil {
			p.AddFix(at, "needs min or max", "bound the metric, e.g. {\"min\": 0.8}")
		}
		if k.Min != nil && k.Max != nil && *k.Min > *k.Max {
			p.Addf(at, "min %v is above max %v", *k.Min, *k.Max)
		}
		switch k.RelativeTo {
		case "", BaselineID:
		default:
			p.AddFix(at+".relativeTo", fmt.Sprintf("unknown %q", k.RelativeTo), `use "baseline" to bound the paired effect against the baseline`)
		}
		if k.Relative && k.RelativeTo == "" {
			p.AddFix(at+".relative", "only applies to an effect", `add "relativeTo": "baseline"`)
		}
		if k.Metric == MetricSubjectBytes && (k.RelativeTo != "" || k.Confidence != nil) {
			p.Add(at, "subject.bytes is one exact value per candidate: no relativeTo and no confidence")
		}
		if k.Confidence != nil {
			checkConfidence(p, at, k, c.Repetitions.Promotion)
		}
	}
	if c.Splits.Test != nil && !testConstraint {
		p.AddFix("objectives.constraints", "the campaign has a test split but no constraint on it",
			`add a constraint with "split": "test" on a metric other than subject.bytes, or drop the test split`)
	}
	for i, m := range c.Objectives.Minimize {
		checkRef(fmt.Sprintf("objectives.minimize[%d]", i), m.Metric, m.Profile, m.Split)
	}
}

// wilsonRepeated is the refusal of Wilson on repeated runs.
const wilsonRepeated = "repeated case runs produce per-case means, not 0/1 outcomes; use Hoeffding or percentile-bootstrap confidence instead of Wilson"

// wilsonClustered is the refusal of Wilson on clustered cases.
const wilsonClustered = "authored case clusters produce bounded means; use Hoeffding or percentile-bootstrap confidence instead of Wilson"

func checkConfidence(p *lux.Problems, at string, k Constraint, promotion int) {
	cf := k.Confidence
	at += ".confidence"
	switch cf.Method {
	case "", stats.StudentT, stats.Normal, stats.PercentileBootstrap:
	case stats.Wilson, stats.Hoeffding:
		if !unitIntervalMetric(k.Metric) {
			p.AddFix(at+".method", fmt.Sprintf("%s applies only to metrics in [0, 1], not %s", cf.Method, k.Metric), "use \"t\" or \"percentile-bootstrap\"")
		} else if k.RelativeTo == "" {
			for _, b := range []*float64{k.Min, k.Max} {
				if b != nil && (*b < 0 || *b > 1) {
					p.Addf(at+".method", "%s bounds a value in [0, 1]; %v is outside", cf.Method, *b)
				}
			}
		}
		if cf.Method == stats.Wilson && k.RelativeTo != "" {
			p.AddFix(at+".method", "wilson does not apply to paired differences, which lie in [-1, 1]", "use \"t\", \"hoeffding\" or \"percentile-bootstrap\"")
		} else if cf.Method == stats.Wilson && promotion > 1 {
			p.Add(at+".method", wilsonRepeated)
		}
	default:
		p.AddFix(at+".method", fmt.Sprintf("unknown method %q", cf.Method), "use t, normal, hoeffding, wilson or percentile-bootstrap")
	}
	if _, err := stats.CheckLevel(cf.Level); err != nil {
		// stats' own message, so the rule reads the same everywhere; the
		// problem matches stats.ErrLevel.
		var se *stats.Error
		if errors.As(err, &se) {
			p.Merge("", &lux.FieldError{Path: at + ".level", Problem: se.Message(), Kind: se})
		}
	}
	if cf.Resamples < 0 || cf.Resamples > stats.MaxResamples {
		p.Addf(at+".resamples", "must lie in [0, %d]", stats.MaxResamples)
	}
	if cf.MinSamples != 0 && cf.MinSamples < 2 {
		p.Add(at+".minSamples", "must be at least 2")
	}
}

func (cf *Confidence) config() stats.Config {
	if cf == nil {
		return stats.Config{Level: stats.DefaultLevel}
	}
	level, err := stats.CheckLevel(cf.Level)
	if err != nil {
		level = cf.Level // unvalidated: stats refuses it again where it is used
	}
	return stats.Config{Method: cf.Method, Level: level, Resamples: cf.Resamples, Seed: cf.Seed, MinUnits: cf.MinSamples}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// profileNames are the campaign's profiles, sorted.
// A grader experiment has one: GraderProfile, its judge.
func (c *Campaign) profileNames() []string {
	if c.Grader != nil && len(c.Profiles) == 0 {
		return []string{GraderProfile}
	}
	return sortedKeys(c.Profiles)
}

// constraintProfiles are the profiles a constraint holds for.
func (c *Campaign) constraintProfiles(k Constraint) []string {
	if k.Profile != "" || k.Metric == MetricSubjectBytes {
		if k.Profile == "" {
			return []string{""}
		}
		return []string{k.Profile}
	}
	return c.profileNames()
}

// checkOptimizer checks the optimizer block: a known algorithm, counts not
// negative, a train split (the only cases an optimizer sees), no fixed
// variants, and a valid harness model.
func (c *Campaign) checkOptimizer(p *lux.Problems) {
	o := c.Optimizer
	if o == nil {
		return
	}
	if o.Algorithm != "" && o.Algorithm != "reflective" {
		p.AddFix("optimizer.algorithm", fmt.Sprintf("unknown %q", o.Algorithm), `use "reflective" (or implement optimize.Optimizer in Go)`)
	}
	if o.MaxProposalCalls < 0 || o.Patience < 0 || o.PromotionTopK < 0 || o.MaxPromptChars < 0 {
		p.Add("optimizer", "counts must not be negative")
	}
	if o.ProposalsPerCall < 0 || o.ProposalsPerCall > 4 {
		p.AddFix("optimizer.proposalsPerCall", "must be 1 to 4", "leave it out for 1")
	}
	if c.Splits.Train == nil {
		p.AddFix("splits.train", "an optimizer needs a train split", `select the cases it learns from, e.g. {"patterns": ["cases/train"]}`)
	}
	if len(c.Variants) > 0 {
		p.AddFix("variants", "a campaign with an optimizer has no fixed variants", "drop them, or drop the optimizer and run lux experiment")
	}
	o.Model.Validate(p, "optimizer.model", false)
}
