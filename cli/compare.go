package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/stats"
)

func compareCommand() command {
	return command{
		name:    "compare",
		args:    "[flags] A B   (two run directories or two suites: directories, latest or label:NAME; B is the change)",
		summary: "compare two runs or two suites; exit status 1 on a regression",
		doc: `Compare run B with run A, or suite B with suite A: identity differences
(what makes them not comparable, each with the -vary flag that accepts it),
run and grading deltas, a short diff of each changed text artifact, and for
suites the paired effect per metric with its confidence interval.

The gate of a suite comparison fails when the suites are not comparable;
when a gate metric (-gate, the pass rate by default) is significantly worse
over the cases; when one case's pass rate fell by more than -tolerance
significantly on its own runs (Fisher's exact test, one-sided: 3/3 → 0/3
is the smallest fall from all to none that counts at 95%); when a case fell
by more than -tolerance with too few runs for any test to show a fall
(one or two runs a side at 95%: with one run per case, any pass → fail
fails the gate); or, with fewer than 20 cases (clusters), when the exact
sign test over them shows a fall (5 of 5 fell: p = 1/32). A fall that
could have been tested and is not significant passes, and the gate says
so. -strict also fails it on any fall or pass → fail flip. The text lists
each rule with the test it rests on and what it found, passed or failed.
-sequential adds, for two suites, the anytime-valid sign test of package
stats over the discordant pairs (a case and repetition where exactly one
suite passed), taken in round order: its e-value against 1/α, its
anytime-valid p-value and the confidence sequence of B's win rate. It stays
valid however often it is looked at, so suites may be extended with more
repetitions and compared again. -alternative chooses its side.
Exit status 1 when the gate fails.

A suite is named by its directory, by "latest" (the suite under -runs-root
that started last) or by "label:NAME" (the newest suite run with -label
NAME): lux compare label:main latest.`,
		setup: compareFlags,
	}
}

func compareFlags(fs *flag.FlagSet) action {
	asJSON := jsonFlag(fs, "the comparison")
	options := comparisonFlags(fs)
	var root string
	runsRootFlag(fs, &root)
	sequential := fs.Bool("sequential", false, "for two suites, also the anytime-valid sign test over the discordant case-repetition pairs: e-value, anytime p-value, confidence sequence (level from -level)")
	alternative := fs.String("alternative", "", `side of -sequential: "two-sided" (default), "greater" (B is better) or "less" (B is worse)`)
	return func(ctx context.Context, e *env, args []string) int {
		if len(args) != 2 {
			return e.usageError("compare", "give two run directories or two suite directories, got %d arguments", len(args))
		}
		dirs, err := resolveSuites(root, args)
		if err != nil {
			e.errorf("compare: %v", err)
			return ExitUsage
		}
		opts := options()
		var seq *compare.SequentialOptions
		if *sequential {
			seq = &compare.SequentialOptions{Level: opts.Level, Alternative: stats.Alternative(*alternative)}
		} else if *alternative != "" {
			return e.usageError("compare", "-alternative applies to -sequential")
		}
		return compareDirs(ctx, e, dirs[0], dirs[1], *asJSON, opts, seq)
	}
}

// comparisonFlags registers the flags that set how two suites or runs are
// compared (lux compare and lux report take them) and returns a func that
// makes the options once the flags are parsed.
func comparisonFlags(fs *flag.FlagSet) func() compare.Options {
	var (
		strict    = fs.Bool("strict", false, "also fail the gate on any case that fell beyond -tolerance or flipped from pass to fail, significant or not")
		method    = fs.String("method", "", `interval method of suite effects: "t" (default), "percentile-bootstrap", "normal" or "hoeffding"`)
		level     = fs.Float64("level", 0, "confidence level (default 0.95)")
		seed      = fs.Uint64("seed", 0, "bootstrap seed")
		tolerance = fs.Float64("tolerance", 0, "how far a case's pass rate may fall before it counts as regressed (and can fail the gate), in [0,1)")
		vary      listFlag
		gate      listFlag
	)
	fs.Var(&vary, "vary", "identity field B changes on purpose (repeatable): caseHash, fixturesHash, runtime, driverConfigHash, source, ...")
	fs.Var(&gate, "gate", "metric whose significant worsening fails the gate (repeatable; default passRate)")
	return func() compare.Options {
		opts := compare.Options{
			Method: stats.Method(*method), Level: *level, Seed: *seed,
			PassRateTolerance: *tolerance, Strict: *strict, GateMetrics: gate,
		}
		for _, f := range vary {
			opts.Vary = append(opts.Vary, compare.Field(f))
		}
		return opts
	}
}

func compareDirs(ctx context.Context, e *env, a, b string, asJSON bool, opts compare.Options, seq *compare.SequentialOptions) int {
	kind, err := compare.DirKind(a)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	var (
		result interface{ WriteText(io.Writer) error }
		doc    any
		failed bool
	)
	if kind == compare.KindRun && seq != nil {
		return e.usageError("compare", "-sequential compares two suites, not two runs")
	}
	if kind == compare.KindRun {
		c, err := compare.Runs(ctx, a, b, opts)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		result, doc, failed = c, RunComparisonReport{Schema: "lux.compare-runs/v1", RunComparison: c}, c.Gate.Failed
	} else {
		c, err := compare.Suites(ctx, a, b, opts)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		rep := SuiteComparisonReport{Schema: "lux.compare-suites/v1", SuiteComparison: c}
		result, failed = c, c.Gate.Failed
		if seq != nil {
			if rep.Sequential, err = compare.SequentialSuites(ctx, a, b, *seq); err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			result = withSequential{c, rep.Sequential}
		}
		doc = rep
	}
	if asJSON {
		if code := e.writeJSON(doc); code != ExitOK {
			return code
		}
	} else if err := result.WriteText(e.stdout); err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if failed {
		return ExitFailed
	}
	return ExitOK
}

// RunComparisonReport is what `lux compare -json` prints for two runs: the
// comparison's fields (see package compare) after its schema,
// "lux.compare-runs/v1".
type RunComparisonReport struct {
	Schema string `json:"schema"`
	*compare.RunComparison
}

// SuiteComparisonReport is what `lux compare -json` prints for two
// suites: the comparison's fields (see package compare) after its schema,
// "lux.compare-suites/v1".
type SuiteComparisonReport struct {
	Schema string `json:"schema"`
	*compare.SuiteComparison
	// Sequential is the anytime-valid sign test, with -sequential.
	Sequential *compare.SequentialComparison `json:"sequential,omitempty"`
}

// withSequential writes a suite comparison followed by its sequential
// sign test.
type withSequential struct {
	c   *compare.SuiteComparison
	seq *compare.SequentialComparison
}

func (w withSequential) WriteText(out io.Writer) error {
	if err := w.c.WriteText(out); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return w.seq.WriteText(out)
}
