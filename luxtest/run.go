package luxtest

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/casefiles"
	"github.com/luxeval/lux/orchestrator"
)

// SlowTag is the tag of cases skipped under go test -short, unless
// Suite.ShortSkipTags says otherwise.
const SlowTag = "slow"

// Suite runs lux cases as go tests: each case is a subtest named by its
// canonical id, so `go test -run 'TestEval/greet'` runs one case. The
// zero value of every field but Registry (or Orchestrator) is a sane
// default.
type Suite struct {
	// Registry holds the plugins the cases use. Required unless
	// Orchestrator is set.
	Registry *lux.Registry
	// Options configure the orchestrator built from Registry. An empty
	// RunsRoot means a fresh temporary directory, removed when the test
	// passes and kept (its path logged) when it fails, so that the run
	// directories a failure names can be inspected; see KeepRuns.
	Options orchestrator.Options
	// Orchestrator, when set, runs the cases instead, with its own options
	// (its runs root, repetitions, default plugins); Registry and Options
	// are then ignored.
	Orchestrator *orchestrator.Orchestrator
	// Parallel runs the cases' subtests in parallel with each other (and
	// with other parallel tests), as t.Parallel does: they run after the
	// calling test function returns. How many runs of one case proceed at
	// once is Options.Concurrency.
	Parallel bool
	// ShortSkipTags are the tags of cases skipped under go test -short.
	// nil means []string{SlowTag}; an empty list skips none.
	ShortSkipTags []string
	// MinPassRate is the share of a case's repetitions that must pass for
	// its subtest to pass; 0 means 1, every one of them.
	MinPassRate float64
	// KeepRuns keeps the temporary runs root even when the test passes.
	KeepRuns bool
}

// Run runs each case through o as a subtest of t (see Suite.Run), with
// o's own options.
func Run(t *testing.T, o *orchestrator.Orchestrator, cases ...*lux.Case) {
	t.Helper()
	Suite{Orchestrator: o}.Run(t, cases...)
}

// Run runs each case as a subtest of t named by the case's canonical id,
// so go test -run selects cases by id. A subtest runs its case
// Options.Repetitions times (recorded as a suite of that one case) and
// fails unless enough of the runs pass (MinPassRate). A run that fails
// its assertions, ends other than done, or could not be graded (an
// assertion returned an error: no verdict) does not pass; the failure
// message lists each assertion that failed with its comment, each that
// could not grade with its error, the exit reason, and the run directory
// to inspect. An invalid case fails its subtest before anything runs.
// Under -short, cases tagged with one of ShortSkipTags are skipped.
func (s Suite) Run(t *testing.T, cases ...*lux.Case) {
	t.Helper()
	o := s.Orchestrator
	if o == nil {
		if s.Registry == nil {
			t.Fatal("luxtest: a Suite needs a Registry or an Orchestrator")
		}
		opts := s.Options
		if opts.RunsRoot == "" {
			opts.RunsRoot = s.tempRoot(t)
		}
		o = orchestrator.New(s.Registry, opts)
	}
	if len(cases) == 0 {
		t.Error("luxtest: no cases to run")
		return
	}
	if s.MinPassRate < 0 || s.MinPassRate > 1 || math.IsNaN(s.MinPassRate) {
		t.Fatalf("luxtest: MinPassRate must be between 0 and 1, got %v", s.MinPassRate)
	}
	t.Logf("luxtest: run records go to %s", o.RunsRoot())
	seen := map[string]bool{}
	for i, c := range cases {
		if c == nil {
			t.Errorf("luxtest: cases[%d] is nil", i)
			continue
		}
		id := c.CanonicalID()
		if seen[id] {
			t.Errorf("luxtest: cases[%d]: another case has the id %q; give each case its own id", i, id)
			continue
		}
		seen[id] = true
		t.Run(id, func(t *testing.T) {
			t.Helper() // a case's failure points at the caller of Run
			s.runCase(t, o, c)
		})
	}
}

// tempRoot makes the runs root of one test: removed when the test passes
// (unless KeepRuns), kept when it fails.
func (s Suite) tempRoot(t *testing.T) string {
	t.Helper()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, t.Name())
	dir, err := os.MkdirTemp("", "luxtest-"+name+"-")
	if err != nil {
		t.Fatalf("luxtest: %v", err)
	}
	t.Cleanup(func() {
		t.Helper()
		if t.Failed() || s.KeepRuns {
			t.Logf("luxtest: run records kept in %s", dir)
			return
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("luxtest: removing %s: %v", dir, err)
		}
	})
	return dir
}

// runCase runs one case's repetitions and reports them.
func (s Suite) runCase(t *testing.T, o *orchestrator.Orchestrator, c *lux.Case) {
	t.Helper()
	id := c.CanonicalID()
	if testing.Short() {
		tags := s.ShortSkipTags
		if tags == nil {
			tags = []string{SlowTag}
		}
		for _, tag := range c.Tags {
			if slices.ContainsFunc(tags, func(s string) bool { return strings.EqualFold(s, tag) }) {
				t.Skipf("luxtest: case %q is tagged %q: skipped under -short", id, tag)
			}
		}
	}
	if s.Parallel {
		t.Parallel()
	}
	if err := o.Validate(c); err != nil {
		t.Fatalf("luxtest: cannot run: %v", err)
	}
	res, err := o.RunSuite(t.Context(), []*lux.Case{c})
	if res == nil {
		t.Fatalf("luxtest: case %q: %v", id, err)
	}
	if err != nil {
		t.Errorf("luxtest: case %q: %v", id, err)
	}
	runs := readRuns(res)
	passed := 0
	for _, r := range runs {
		if r.verdict == "pass" {
			passed++
		}
	}
	rate := s.MinPassRate
	if rate == 0 {
		rate = 1
	}
	need := int(math.Ceil(rate*float64(len(runs)) - 1e-9))
	if passed >= need && len(runs) > 0 {
		t.Log(passSummary(id, runs, passed))
		return
	}
	t.Error(failureReport(id, runs, passed, need))
}

// LoadCases reads the cases of paths as the lux command does (see
// cli.LoadCases, through internal/casefiles): a file is read whatever its name, a directory is searched
// recursively for *.case.json files. Every unreadable or invalid file, and
// every id two cases share, fails t at once.
func LoadCases(t testing.TB, paths ...string) []*lux.Case {
	t.Helper()
	cases, err := casefiles.Load(paths, nil)
	if err != nil {
		t.Fatalf("luxtest: loading cases: %v", err)
	}
	return cases
}
