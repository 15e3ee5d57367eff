package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// runFlags are the flags shared by commands that build an orchestrator.
type runFlags struct {
	runsRoot    string
	concurrency int
	repeat      int
	driver      string
	answerer    string
	environment string
	tags        listFlag
	quiet       bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.runsRoot, "runs-root", record.DefaultRoot, "directory the run and suite records go to")
	fs.IntVar(&f.concurrency, "j", 1, "how many runs proceed at once")
	fs.IntVar(&f.repeat, "repeat", 1, "how many times each case runs (repetitions share the case id)")
	fs.StringVar(&f.driver, "driver", "", "default driver for cases that name none: a name, or a JSON {\"name\":...,\"config\":{...}}")
	fs.StringVar(&f.answerer, "answerer", "", "default answerer for cases that name none: a name, or a JSON {\"name\":...,\"config\":{...}}")
	fs.StringVar(&f.environment, "environment", "", "where the agents run, recorded in every run: JSON, or @file")
	fs.Var(&f.tags, "tag", "only cases with this tag (repeatable, or comma-separated)")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
}

func (f *runFlags) options(stderr io.Writer) (orchestrator.Options, error) {
	opts := orchestrator.Options{RunsRoot: f.runsRoot, Concurrency: f.concurrency, Repetitions: f.repeat}
	var err error
	if opts.DefaultDriver, err = parseRef("-driver", f.driver); err != nil {
		return opts, err
	}
	if opts.DefaultAnswerer, err = parseRef("-answerer", f.answerer); err != nil {
		return opts, err
	}
	if f.environment != "" {
		raw := []byte(f.environment)
		if name, ok := strings.CutPrefix(f.environment, "@"); ok {
			if raw, err = os.ReadFile(name); err != nil {
				return opts, fmt.Errorf("-environment: %w", err)
			}
		}
		if !json.Valid(raw) {
			return opts, fmt.Errorf("-environment: not valid JSON (give a JSON value, or @file holding one)")
		}
		opts.Environment = json.RawMessage(raw)
	}
	if f.concurrency < 1 {
		return opts, fmt.Errorf("-j: must be at least 1, got %d", f.concurrency)
	}
	if f.repeat < 1 {
		return opts, fmt.Errorf("-repeat: must be at least 1, got %d", f.repeat)
	}
	if !f.quiet {
		opts.Progress = progressPrinter(stderr)
	}
	return opts, nil
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

func progressPrinter(w io.Writer) func(orchestrator.Update) {
	return func(u orchestrator.Update) {
		if u.Kind != orchestrator.RunFinished {
			return
		}
		verdict := "ungraded"
		if u.Passed != nil {
			verdict = map[bool]string{true: "PASS", false: "FAIL"}[*u.Passed]
		}
		if u.Err != nil {
			verdict = "ERROR"
		}
		fmt.Fprintf(w, "[%d/%d] %-8s %s #%d (%s, %s)\n", u.Done, u.Total, verdict, u.CaseID, u.Repetition,
			u.ExitReason, u.Duration.Round(10*time.Millisecond))
		if u.Err != nil {
			fmt.Fprintf(w, "         %v\n", u.Err)
		}
	}
}

// casesCommand is a command over cases: the shared flags, then case files
// or directories (default "cases").
type casesCommand struct {
	fs    *flag.FlagSet
	flags runFlags
}

func newCasesCommand(e *env, name string) *casesCommand {
	c := &casesCommand{fs: flag.NewFlagSet("lux "+name, flag.ContinueOnError)}
	c.fs.SetOutput(e.stderr)
	c.flags.register(c.fs)
	c.fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: lux %s [flags] [case files or directories...]  (default: cases)\n", name)
		c.fs.PrintDefaults()
	}
	return c
}

// load parses args, loads the selected cases and builds the orchestrator;
// on failure it has reported the problem and returns a non-zero status.
func (c *casesCommand) load(e *env, args []string, progress bool) (*orchestrator.Orchestrator, []*lux.Case, int) {
	if err := c.fs.Parse(args); err != nil {
		return nil, nil, ExitUsage
	}
	paths := c.fs.Args()
	if len(paths) == 0 {
		paths = []string{"cases"}
	}
	cases, err := LoadCases(paths, c.flags.tags)
	if err != nil {
		e.errorf("%v", err)
		return nil, nil, ExitUsage
	}
	if len(cases) == 0 {
		e.errorf("no case matches the tags %s", c.flags.tags.String())
		return nil, nil, ExitUsage
	}
	c.flags.quiet = c.flags.quiet || !progress
	opts, err := c.flags.options(e.stderr)
	if err != nil {
		e.errorf("%v", err)
		return nil, nil, ExitUsage
	}
	return orchestrator.New(e.reg, opts), cases, ExitOK
}

func runCmd(ctx context.Context, e *env, args []string) int {
	o, cases, code := newCasesCommand(e, "run").load(e, args, true)
	if code != ExitOK {
		return code
	}
	res, err := o.RunSuite(ctx, cases)
	if res == nil {
		e.errorf("%v", err)
		if errors.Is(err, lux.ErrInvalidCase) {
			return ExitUsage
		}
		return ExitFailed
	}
	writeSuiteTable(e.stdout, res.Dir, res.Manifest, res.Summary)
	if err != nil {
		e.errorf("%v", err)
		return ExitFailed
	}
	if res.Summary == nil || res.Summary.Totals.Passed != res.Summary.Totals.Attempts {
		return ExitFailed
	}
	return ExitOK
}

// writeSuiteTable prints one line per run and the totals.
func writeSuiteTable(w io.Writer, dir string, m *record.SuiteManifest, s *record.SuiteSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tREP\tVERDICT\tSCORE\tEXIT\tRUN")
	for _, it := range m.Items {
		verdict := "ungraded"
		if it.Passed != nil {
			verdict = map[bool]string{true: "pass", false: "FAIL"}[*it.Passed]
		}
		if it.Status == record.ItemSkipped {
			verdict = "skipped"
		}
		score := "-"
		if it.Score != nil {
			score = fmt.Sprintf("%.2f", *it.Score)
		}
		exit := string(it.ExitReason)
		if exit == "" {
			exit = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", it.CaseID, it.Repetition, verdict, score, exit, it.RunDir)
	}
	tw.Flush()
	if s != nil {
		t := s.Totals
		fmt.Fprintf(w, "\n%d runs: %d passed, %d failed, %d ungraded (pass rate %.1f%%)\n",
			t.Attempts, t.Passed, t.Failed, t.Ungraded, 100*t.PassRate)
	}
	fmt.Fprintf(w, "records: %s\n", dir)
}

func validateCmd(_ context.Context, e *env, args []string) int {
	o, cases, code := newCasesCommand(e, "validate").load(e, args, false)
	if code != ExitOK {
		return code
	}
	bad := 0
	for _, c := range cases {
		if err := o.Validate(c); err != nil {
			bad++
			fmt.Fprintf(e.stdout, "%s (%s):\n", c.CanonicalID(), c.Path)
			for _, p := range lux.Unwrap(err) {
				fmt.Fprintf(e.stdout, "  - %v\n", p)
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%s: ok\n", c.CanonicalID())
	}
	if bad > 0 {
		fmt.Fprintf(e.stdout, "%d of %d cases are invalid\n", bad, len(cases))
		return ExitUsage
	}
	return ExitOK
}
