package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/terminal"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/project"
	"github.com/luxeval/lux/record"
)

// caseFlags select the cases and give them their defaults: the flags of
// every command over case files (run, validate, doctor).
type caseFlags struct {
	driver   string
	answerer string
	tags     listFlag
}

func (f *caseFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.driver, "driver", "", "driver for every case, replacing the one a case names (its config is not merged in): a name, or a JSON {\"name\":...,\"config\":{...}}")
	fs.StringVar(&f.answerer, "answerer", "", "answerer for every case, replacing the one a case names: a name, or a JSON {\"name\":...,\"config\":{...}}")
	fs.Var(&f.tags, "tag", "only cases with this tag (repeatable, or comma-separated)")
}

// load reads the cases named by paths (default "cases") and fills the
// driver and answerer of opts from the flags; on failure it has reported the
// problem and returns a non-zero status.
func (f *caseFlags) load(e *env, paths []string, opts *orchestrator.Options) ([]*lux.Case, int) {
	if code := f.defaults(e, opts); code != ExitOK {
		return nil, code
	}
	cases, err := LoadCases(casePaths(paths), f.tags)
	if err != nil {
		e.errorf("cannot load the cases ('lux validate' checks them against the plugins too):\n%v", err)
		return nil, ExitUsage
	}
	if len(cases) == 0 {
		e.errorf("no case matches the tags %s", f.tags.String())
		return nil, ExitUsage
	}
	return cases, ExitOK
}

// optionFlags names the flag that sets each orchestrator option, so that
// the orchestrator's messages speak the command line (see
// orchestrator.Options.OptionNames). A command that adds a flag for an
// option adds it here.
var optionFlags = map[string]string{
	"RunsRoot":        "-runs-root",
	"Concurrency":     "-j",
	"Repetitions":     "-repeat",
	"Driver":          "-driver",
	"Answerer":        "-answerer",
	"DefaultDriver":   "defaultDriver in " + project.FileName,
	"DefaultAnswerer": "defaultAnswerer in " + project.FileName,
	"Environment":     "-environment",
	"Label":           "-label",
	"ProjectDir":      "a " + project.FileName + " found from the working directory up, or -config",
}

// defaults fills the driver and answerer of opts from the flags that are
// given (they replace what a case names: see orchestrator.Choose), and
// names the flags in the orchestrator's messages.
func (f *caseFlags) defaults(e *env, opts *orchestrator.Options) int {
	opts.OptionNames = maps.Clone(optionFlags)
	for _, d := range []struct {
		flag, value string
		dst         **lux.PluginRef
	}{{"-driver", f.driver, &opts.Driver}, {"-answerer", f.answerer, &opts.Answerer}} {
		ref, err := parseRef(d.flag, d.value)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		if ref != nil {
			*d.dst = ref
		}
	}
	return ExitOK
}

// casePaths is the case files and directories given, by default "cases".
func casePaths(args []string) []string {
	if len(args) == 0 {
		return []string{"cases"}
	}
	return args
}

// casesArgs is the argument synopsis of the commands over case files.
const casesArgs = "[flags] [case files or directories...]  (default: cases)"

// runFlags are the flags of a suite run.
type runFlags struct {
	cases       caseFlags
	runsRoot    string
	concurrency int
	repeat      int
	environment string
	quiet       bool
	resume      string
	junit       string
	interactive bool
	plan        bool
	timeout     time.Duration
	json        *bool
	project     projectFlags
	label       string
	limits      limitFlags
	confirm     confirmFlags
	sandbox     sandboxFlags
	executor    string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.cases.register(fs)
	f.confirm.register(fs)
	runsRootFlag(fs, &f.runsRoot)
	fs.IntVar(&f.concurrency, "j", 1, "how many agents run at once (the harness prepares and records other runs meanwhile)")
	fs.IntVar(&f.repeat, "repeat", 1, "how many times each case runs (repetitions share the case id)")
	fs.StringVar(&f.environment, "environment", "", "where the agents run, recorded in every run: JSON, or @file")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
	fs.BoolVar(&f.interactive, "interactive", false, "a person answers in this terminal (the terminal answerer) for every case, as -answerer terminal; runs one at a time")
	fs.BoolVar(&f.plan, "plan", false, "list each case's driver, the command it will start and what chose them (the case, -driver, "+project.FileName+"); run nothing")
	fs.DurationVar(&f.timeout, "timeout", orchestrator.DefaultRunTimeout, "each run's wall-clock limit, for cases that set no timeout (exit reason timeout)")
	fs.StringVar(&f.resume, "resume", "", "an interrupted suite (its directory, latest or label:NAME under -runs-root): run only its cancelled and not-run items, into it (cases default to the suite's own case files; -runs-root and -repeat are the suite's)")
	fs.StringVar(&f.junit, "junit", "", "also write the suite as JUnit XML to this file (one testcase per run), for CI systems")
	f.json = jsonFlag(fs, "the suite (schema lux.suite/v1)")
	fs.StringVar(&f.label, "label", "", `name the suite, so that "label:NAME" finds the newest suite so named (lux compare label:main latest)`)
	f.project.register(fs, true)
	f.limits.register(fs)
	f.sandbox.register(fs)
	executorFlag(fs, &f.executor)
}

// runsRootFlag registers -runs-root, the one place records are read from
// and written to.
func runsRootFlag(fs *flag.FlagSet, root *string) {
	fs.StringVar(root, "runs-root", record.DefaultRoot, "directory the run and suite records are under")
}

// options fills opts from the flags.
func (f *runFlags) options(opts *orchestrator.Options, stderr io.Writer) error {
	opts.RunsRoot, opts.Concurrency, opts.Repetitions, opts.RunTimeout = f.runsRoot, f.concurrency, f.repeat, f.timeout
	opts.Label = f.label
	var err error
	if f.environment != "" {
		raw := []byte(f.environment)
		if name, ok := strings.CutPrefix(f.environment, "@"); ok {
			if raw, err = os.ReadFile(name); err != nil {
				return fmt.Errorf("-environment: %w", err)
			}
		}
		if !json.Valid(raw) {
			return fmt.Errorf("-environment: not valid JSON (give a JSON value, or @file holding one)")
		}
		opts.Environment = json.RawMessage(raw)
	}
	if f.concurrency < 1 {
		return fmt.Errorf("-j: must be at least 1, got %d", f.concurrency)
	}
	if f.repeat < 1 {
		return fmt.Errorf("-repeat: must be at least 1, got %d", f.repeat)
	}
	if err := f.limits.options(opts); err != nil {
		return err
	}
	if err := f.sandbox.options(opts, stderr); err != nil {
		return err
	}
	if !f.quiet {
		opts.Progress = progressPrinter(stderr)
	}
	return nil
}

// useTerminal makes the terminal answerer the default answerer, one run
// at a time, when standard input is a terminal.
func (f *runFlags) useTerminal(opts *orchestrator.Options, stderr io.Writer) error {
	if f.cases.answerer != "" {
		return fmt.Errorf("-interactive: it selects the answerer, so give it or -answerer, not both")
	}
	if !terminal.StdinIsTerminal() {
		return terminal.ErrNoTerminal
	}
	if opts.Concurrency > 1 {
		fmt.Fprintf(stderr, "lux: -interactive: runs proceed one at a time (-j %d ignored), since one person answers\n", opts.Concurrency)
	}
	opts.Concurrency = 1
	opts.Answerer = &lux.PluginRef{Name: terminal.Name}
	opts.OptionNames["Answerer"] = "-interactive"
	return nil
}

func parseRef(flagName, v string) (*lux.PluginRef, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	if !strings.HasPrefix(v, "{") {
		return &lux.PluginRef{Name: v}, nil
	}
	var ref lux.PluginRef
	if err := json.Unmarshal([]byte(v), &ref); err != nil {
		return nil, fmt.Errorf("%s: %v", flagName, err)
	}
	return &ref, nil
}

func runCommand() command {
	return command{
		name:    "run",
		args:    casesArgs,
		summary: "run cases (files or directories of *.case.json) as a suite and record every run",
		doc: `Run the cases as one suite: every case (each -repeat times) runs in a fresh
workspace, is graded by its assertions, and is recorded under -runs-root.
The doctor's checks run first: a suite whose agent commands are missing is
refused before anything starts (exit status 2). -driver and -answerer replace
what every case names (lux.json's defaults only fill what a case leaves
out); each case whose command (or answerer) is not its own is named on
stderr, and -plan lists what each case will run without running it. Progress lines go to
stderr; the results table (or -json) to stdout: each run's verdict (pass,
FAIL, ERROR when the harness could not grade it, cancelled, not run), its
failed assertions, duration, agent tokens and directory. The pass rate is
over graded runs only. Exit status 1 when a run did not pass, 130 when
interrupted; -resume finishes an interrupted suite. -baseline SUITE -confirm
runs each case once and adds runs only where a case disagrees with the
baseline, until a sequential test decides it regressed, held or improved
(exit status 1 on a regression, or one undecided at -confirm-max).`,
		setup: func(fs *flag.FlagSet) action {
			var f runFlags
			f.register(fs)
			return func(ctx context.Context, e *env, args []string) int { return runSuite(ctx, e, &f, args) }
		},
	}
}

func runSuite(ctx context.Context, e *env, f *runFlags, args []string) int {
	startupOver()
	if err := f.confirm.check(f); err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	var resumed *record.Suite
	if f.resume != "" {
		dir, err := record.ResolveSuite(f.runsRoot, f.resume)
		if err != nil {
			e.errorf("-resume: %v", err)
			return ExitUsage
		}
		f.resume = dir
		s, err := record.ReadSuite(f.resume)
		if err != nil {
			e.errorf("-resume: %v", err)
			return ExitUsage
		}
		resumed = s
		abs, _ := filepath.Abs(f.resume)
		f.runsRoot = filepath.Dir(filepath.Dir(abs))
		if len(args) == 0 {
			if args = suiteCaseFiles(s.Manifest); len(args) == 0 {
				e.errorf("-resume: suite %s has nothing left to run", f.resume)
				newSuiteReport(s).writeText(e.stdout)
				return suiteExit(s.Summary)
			}
		}
	}
	var opts orchestrator.Options
	if code := f.project.defaultCases(e, &args); code != ExitOK {
		return code
	}
	cases, code := f.cases.load(e, args, &opts)
	if code != ExitOK {
		return code
	}
	if err := f.options(&opts, e.stderr); err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if f.interactive {
		if err := f.useTerminal(&opts, e.stderr); err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
	}
	if code := f.project.apply(e, &opts); code != ExitOK {
		return code
	}
	x, closeX, xerr := e.executor(ctx, f.executor, opts.RunsRoot)
	if xerr != nil {
		e.errorf("%v", xerr)
		return ExitUsage
	}
	defer closeX()
	opts.Executor = x
	o := orchestrator.New(e.reg, opts)
	if f.plan {
		return listDrivers(e, o, cases, *f.json)
	}
	if code := preflight(ctx, e, o, cases, f.quiet); code != ExitOK {
		return code
	}
	noteDrivers(e, o, cases)
	if f.confirm.confirm {
		return runConfirm(ctx, e, f, opts, o, cases)
	}
	var res *record.Suite
	var err error
	if resumed != nil {
		res, err = o.ResumeSuite(ctx, resumed.Dir, cases)
		if errors.Is(err, orchestrator.ErrNothingToResume) {
			e.errorf("-resume: %v", err)
			err = nil
		}
	} else {
		res, err = o.RunSuite(ctx, cases)
	}
	if res == nil {
		e.errorf("%v", err)
		if errors.Is(err, lux.ErrInvalidCase) || errors.Is(err, record.ErrUnusableRoot) {
			return ExitUsage
		}
		return ExitFailed
	}
	rep := newSuiteReport(res)
	if *f.json {
		e.writeJSON(rep)
	} else {
		rep.writeText(e.stdout)
	}
	if f.junit != "" {
		if jerr := writeJUnit(f.junit, rep); jerr != nil {
			e.errorf("-junit: %v", jerr)
			return ExitUsage
		}
	}
	if err != nil {
		e.errorf("%v", err)
		if missing := len(orchestrator.Missing(res.Manifest)); missing > 0 && ctx.Err() != nil {
			e.errorf("interrupted: %d of %d runs did not finish; run them into the same suite with:\n  %s", missing, len(res.Manifest.Items), f.resumeCommand(res.Dir, args))
		}
		return ExitFailed
	}
	return suiteExit(res.Summary)
}

// resumeCommand is the command line that finishes the suite in dir: lux
// run -resume with the flags that chose what the runs were (the project
// file and profile, the driver, answerer and environment, the sandbox, the
// executor), which the suite does not record, and the case paths given.
func (f *runFlags) resumeCommand(dir string, args []string) string {
	parts := []string{"lux", "run", "-resume", displayPath(dir)}
	for _, fl := range []struct{ name, value string }{
		{"-config", f.project.config}, {"-profile", f.project.profile},
		{"-driver", f.cases.driver}, {"-answerer", f.cases.answerer}, {"-environment", f.environment},
		{"-sandbox", unlessDefault(f.sandbox.level, "auto")}, {"-require-sandbox", f.sandbox.require},
		{"-executor", unlessDefault(f.executor, "local")},
	} {
		if fl.value != "" {
			parts = append(parts, fl.name, shellQuote(fl.value))
		}
	}
	if f.timeout != orchestrator.DefaultRunTimeout {
		parts = append(parts, "-timeout", f.timeout.String())
	}
	if f.concurrency > 1 {
		parts = append(parts, "-j", fmt.Sprint(f.concurrency))
	}
	if f.resume == "" {
		for _, a := range args {
			parts = append(parts, shellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// unlessDefault is v, or "" when v is the flag's default def.
func unlessDefault(v, def string) string {
	if v == def {
		return ""
	}
	return v
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// suiteExit is the exit status of a suite: 0 when every run passed.
func suiteExit(s *record.SuiteSummary) int {
	if s == nil || s.Totals.Passed != s.Totals.Attempts {
		return ExitFailed
	}
	return ExitOK
}

// suiteCaseFiles lists the case files of the items of m that a resume
// would run, once each.
func suiteCaseFiles(m *record.SuiteManifest) []string {
	var out []string
	seen := map[string]bool{}
	for _, i := range orchestrator.Missing(m) {
		if p := m.Items[i].CasePath; p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// preflight runs the doctor's checks before a suite starts: a suite whose
// commands are missing (or whose runs root is not writable, or whose cases
// are invalid) is refused before any run, with the failed checks (and,
// unless quiet, the warnings) on stderr.
func preflight(ctx context.Context, e *env, o *orchestrator.Orchestrator, cases []*lux.Case, quiet bool) int {
	diags := o.Preflight(ctx, cases)
	healthy := orchestrator.Healthy(diags)
	for _, d := range diags {
		if d.Status == orchestrator.StatusFail || d.Status == orchestrator.StatusWarn && !quiet && !healthy {
			fmt.Fprintln(e.stderr, d)
		}
	}
	if !healthy {
		e.errorf("run: nothing was run: fix the failed checks above ('lux doctor' runs them alone)")
		return ExitUsage
	}
	return ExitOK
}

// RunPlan is what `lux run -plan -json` prints: what each case will run.
type RunPlan struct {
	Schema string                    `json:"schema"` // "lux.run-plan/v1"
	Cases  []orchestrator.CaseDriver `json:"cases"`
}

// listDrivers prints, for lux run -plan, each case's driver, the command it
// will start and what chose them, with the case's own command when an
// override replaced it; it runs nothing.
func listDrivers(e *env, o *orchestrator.Orchestrator, cases []*lux.Case, asJSON bool) int {
	drivers, err := o.Drivers(cases)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if asJSON {
		return e.writeJSON(RunPlan{Schema: "lux.run-plan/v1", Cases: drivers})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for _, d := range drivers {
		by := d.By
		if d.Differs {
			by += "; " + d.OwnLabel + ": " + ownCommands(d)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t(%s)\n", d.CaseID, d.Driver, strings.Join(d.Commands, ", "), by)
		if d.AnswererReplaced != nil {
			fmt.Fprintf(tw, "%s\tanswerer %s\t\t(%s; the case's own: %s)\n", d.CaseID, d.Answerer, d.AnswererBy, d.AnswererReplaced.Name)
		}
	}
	_ = tw.Flush()
	return ExitOK
}

// noteDrivers says on stderr, before a suite runs, which cases run another
// command than their own (or than the driver's default), and what chose it.
func noteDrivers(e *env, o *orchestrator.Orchestrator, cases []*lux.Case) {
	drivers, err := o.Drivers(cases)
	if err != nil {
		return // the suite refuses the case, saying why
	}
	for _, d := range drivers {
		if d.Differs {
			fmt.Fprintf(e.stderr, "lux: %s: runs %s (%s), not %s %s\n", d.CaseID, strings.Join(d.Commands, ", "), d.By, d.OwnLabel, ownCommands(d))
		}
		if d.AnswererReplaced != nil {
			fmt.Fprintf(e.stderr, "lux: %s: answered by %s (%s), not the case's own %s\n", d.CaseID, d.Answerer, d.AnswererBy, d.AnswererReplaced.Name)
		}
	}
}

// ownCommands are the commands the case would run on its own, or its own
// driver's name when they are not known.
func ownCommands(d orchestrator.CaseDriver) string {
	if len(d.Own) > 0 {
		return strings.Join(d.Own, ", ")
	}
	if d.Replaced != nil {
		return "driver " + d.Replaced.Name
	}
	return "command"
}
