package luxtest

import (
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/internal/casefiles"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// SlowTag is the tag of cases skipped under go test -short, unless
// Suite.ShortSkipTags says otherwise.
const SlowTag = "slow"

// Suite runs lux cases as go tests: each case is a subtest named by its
// canonical id, so `go test -run 'TestEval/greet'` runs one case. The
// cases a Run selects are run together as one suite, recorded as `lux
// run` records it, and the suite can be gated on a baseline suite as `lux
// compare` gates. The zero value of every field but Registry (or
// Orchestrator) is a sane default; the environment variables below fill
// the fields left empty, so that a CI job configures the suite without
// changing the test.
type Suite struct {
	// Registry holds the plugins the cases use. Required unless
	// Orchestrator is set.
	Registry *lux.Registry
	// Options configure the orchestrator built from Registry. An empty
	// RunsRoot means $LUX_RUNS_ROOT when set (relative to the package
	// directory go test runs in), else a fresh temporary directory,
	// removed when the test passes and kept (its path logged) when it
	// fails, so that the run directories a failure names can be
	// inspected; see KeepRuns. An empty Label means $LUX_LABEL.
	Options orchestrator.Options
	// Orchestrator, when set, runs the cases instead, with its own options
	// (its runs root, label, repetitions, default plugins); Registry,
	// Options and Label are then ignored.
	Orchestrator *orchestrator.Orchestrator
	// Parallel lets the runs of different cases overlap: with an
	// orchestrator built from Options, a Concurrency of 0 becomes the
	// number of runs. Without it they go Options.Concurrency at a time
	// (one by default).
	Parallel bool
	// ShortSkipTags are the tags of cases skipped under go test -short.
	// nil means []string{SlowTag}; an empty list skips none.
	ShortSkipTags []string
	// MinPassRate is the share of a case's repetitions that must pass for
	// its subtest to pass; 0 means 1, every one of them.
	MinPassRate float64
	// KeepRuns keeps the temporary runs root even when the test passes;
	// so does LUX_KEEP_RUNS=1 (or true).
	KeepRuns bool
	// Label names the suite (record.SuiteManifest.Label) so that a later
	// run can name it as its baseline with "label:NAME"; empty means
	// Options.Label, else $LUX_LABEL.
	Label string
	// Baseline names a suite to gate this one on: a suite directory,
	// "latest", or "label:NAME" (the newest suite under the runs root
	// with that label; see record.ResolveSuite); empty means
	// $LUX_BASELINE, and no gate when that is empty too. It is resolved
	// before anything runs, so "latest" is never this suite. After the
	// cases ran, the two suites are compared with compare.Suites and
	// Compare's options (default options by default: the gate of `lux
	// compare`), and a gate that fails fails the test calling Run with
	// the comparison's text.
	Baseline string
	// Compare configures the comparison with the baseline, as lux
	// compare's flags do; its zero value is lux compare's default. The
	// identity fields in $LUX_VARY (comma-separated, as -vary takes them)
	// are added to Compare.Vary: what a change is meant to change, such
	// as "source" (the commit of the case files) or "runtime" (the
	// agent's command), without which the suites are not comparable.
	Compare compare.Options
}

// The environment variables that configure a Suite whose fields leave
// them open (see Suite).
const (
	EnvRunsRoot = "LUX_RUNS_ROOT"
	EnvLabel    = "LUX_LABEL"
	EnvBaseline = "LUX_BASELINE"
	EnvKeepRuns = "LUX_KEEP_RUNS"
	EnvVary     = "LUX_VARY"
)

// Run runs each case through o as a subtest of t (see Suite.Run), with
// o's own options.
func Run(t *testing.T, o *orchestrator.Orchestrator, cases ...*lux.Case) {
	t.Helper()
	Suite{Orchestrator: o}.Run(t, cases...)
}

// Run runs the cases as one suite and reports each as a subtest of t
// named by the case's canonical id, so go test -run selects cases by id.
// Each selected case runs Options.Repetitions times, and its subtest fails
// unless enough of the runs pass (MinPassRate). A run that fails its
// assertions, ends other than done, or could not be graded (an assertion
// returned an error: no verdict) does not pass; the failure message lists
// each assertion that failed with its comment, each that could not grade
// with its error, the exit reason, and the run directory to inspect. An
// invalid case fails its subtest and is left out of the suite. Under
// -short, cases tagged with one of ShortSkipTags are skipped.
//
// The subtests are parallel subtests: each is selected, validated and
// paused, the suite runs once every case is known (under t's context),
// and the subtests report when the function calling Run returns. With a
// Baseline, the suite is then gated on it (see Suite.Baseline).
func (s Suite) Run(t *testing.T, cases ...*lux.Case) {
	t.Helper()
	o := s.Orchestrator
	tempRoot := false
	if o == nil {
		if s.Registry == nil {
			t.Fatal("luxtest: a Suite needs a Registry or an Orchestrator")
		}
		var opts orchestrator.Options
		opts, tempRoot = s.options(t, len(cases))
		o = orchestrator.New(s.Registry, opts)
	} else {
		if s.Label != "" {
			t.Fatal("luxtest: Suite.Label is ignored with an Orchestrator; set the orchestrator's Options.Label")
		}
		for _, v := range []string{EnvRunsRoot, EnvLabel} {
			if os.Getenv(v) != "" {
				t.Logf("luxtest: $%s is ignored: the Orchestrator given has its own options", v)
			}
		}
	}
	if len(cases) == 0 {
		t.Error("luxtest: no cases to run")
		return
	}
	if s.MinPassRate < 0 || s.MinPassRate > 1 || math.IsNaN(s.MinPassRate) {
		t.Fatalf("luxtest: MinPassRate must be between 0 and 1, got %v", s.MinPassRate)
	}
	baseline := s.baseline()
	if baseline != "" {
		dir, err := record.ResolveSuite(o.RunsRoot(), baseline)
		if err != nil && tempRoot {
			t.Fatalf("luxtest: the baseline %q: %v\nluxtest: the runs root is a fresh temporary directory: set %s (or Options.RunsRoot) to the runs root the baseline was recorded in", baseline, err, EnvRunsRoot)
		}
		if err != nil {
			t.Fatalf("luxtest: the baseline %q: %v", baseline, err)
		}
		baseline = dir
	}
	t.Logf("luxtest: run records go to %s", o.RunsRoot())
	sr := &suiteRun{done: make(chan struct{})}
	defer sr.finish(nil, errors.New("luxtest: the suite did not run"))
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
			s.runCase(t, o, c, sr)
		})
	}
	if len(sr.cases) == 0 {
		return
	}
	res, err := o.RunSuite(t.Context(), sr.cases)
	sr.finish(res, err)
	if res == nil {
		t.Errorf("luxtest: the suite did not run: %v", err)
		return
	}
	if err != nil {
		t.Errorf("luxtest: %v", err)
	}
	if tempRoot && !s.keepRuns() {
		t.Logf("luxtest: suite recorded in %s (removed if the test passes; %s=1 keeps it)", res.Dir, EnvKeepRuns)
	} else {
		t.Logf("luxtest: suite recorded in %s", res.Dir)
	}
	if p := record.SuitePassK(res.Manifest.Items, res.Manifest.Repetitions); p != nil {
		t.Logf("luxtest: %s", p.Text())
	}
	if baseline != "" {
		gate(t, baseline, res.Dir, s.compareOptions())
	}
}

// suiteRun is the suite of one Run, shared with its subtests: the cases
// they selected, and once it ran, its result.
type suiteRun struct {
	mu    sync.Mutex
	cases []*lux.Case
	once  sync.Once
	done  chan struct{}
	res   *record.Suite
	err   error
}

func (sr *suiteRun) add(c *lux.Case) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	sr.cases = append(sr.cases, c)
}

// finish records the suite's outcome, once, and releases the subtests.
func (sr *suiteRun) finish(res *record.Suite, err error) {
	sr.once.Do(func() {
		sr.res, sr.err = res, err
		close(sr.done)
	})
}

// options are the orchestrator's options: Options, with the runs root,
// label and concurrency filled in; temp reports a temporary runs root.
func (s Suite) options(t *testing.T, cases int) (opts orchestrator.Options, temp bool) {
	t.Helper()
	opts = s.Options
	if s.Label != "" {
		opts.Label = s.Label
	}
	if opts.Label == "" {
		opts.Label = os.Getenv(EnvLabel)
	}
	if opts.RunsRoot == "" {
		opts.RunsRoot = os.Getenv(EnvRunsRoot)
	}
	if opts.RunsRoot == "" {
		opts.RunsRoot, temp = s.tempRoot(t), true
	}
	if s.Parallel && opts.Concurrency == 0 {
		opts.Concurrency = cases * max(1, opts.Repetitions)
	}
	return opts, temp
}

// baseline is the suite to gate on, as named: Baseline, else
// $LUX_BASELINE.
func (s Suite) baseline() string {
	if s.Baseline != "" {
		return s.Baseline
	}
	return strings.TrimSpace(os.Getenv(EnvBaseline))
}

// compareOptions are Compare with the fields of $LUX_VARY added to Vary.
func (s Suite) compareOptions() compare.Options {
	opts := s.Compare
	opts.Vary = slices.Clone(opts.Vary)
	for f := range strings.SplitSeq(os.Getenv(EnvVary), ",") {
		if f = strings.TrimSpace(f); f != "" {
			opts.Vary = append(opts.Vary, compare.Field(f))
		}
	}
	return opts
}

// keepRuns reports whether the records of a passing test are kept.
func (s Suite) keepRuns() bool {
	if s.KeepRuns {
		return true
	}
	v, err := strconv.ParseBool(strings.TrimSpace(os.Getenv(EnvKeepRuns)))
	return err == nil && v
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
		if t.Failed() || s.keepRuns() {
			t.Logf("luxtest: run records kept in %s", dir)
			return
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("luxtest: removing %s: %v", dir, err)
		}
	})
	return dir
}

// runCase is the subtest of one case: it is skipped, refused or added to
// the suite, then waits for the suite to run and reports its runs.
func (s Suite) runCase(t *testing.T, o *orchestrator.Orchestrator, c *lux.Case, sr *suiteRun) {
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
	if err := o.Validate(c); err != nil {
		t.Fatalf("luxtest: cannot run: %v", err)
	}
	sr.add(c)
	t.Parallel() // until the function calling Run returns, after the suite ran
	<-sr.done
	if sr.res == nil {
		t.Fatalf("luxtest: case %q did not run: %v", id, sr.err)
	}
	runs := readRuns(sr.res, id)
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
