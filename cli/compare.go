package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/stats"
)

func compareCmd(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("lux compare", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		asJSON    = fs.Bool("json", false, "print the comparison as JSON")
		strict    = fs.Bool("strict", false, "fail the gate on any pass → fail flip or regressed case, significant or not")
		method    = fs.String("method", "", `interval method of suite effects: "t" (default), "percentile-bootstrap", "normal" or "hoeffding"`)
		level     = fs.Float64("level", 0, "confidence level (default 0.95)")
		seed      = fs.Uint64("seed", 0, "bootstrap seed")
		tolerance = fs.Float64("tolerance", 0, "how far a case's pass rate may fall before it counts as regressed, in [0,1)")
		vary      listFlag
		gate      listFlag
	)
	fs.Var(&vary, "vary", "identity field B changes on purpose (repeatable): caseHash, fixturesHash, runtime, driverConfigHash, source, ...")
	fs.Var(&gate, "gate", "metric whose significant worsening fails the gate (repeatable; default passRate)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: lux compare [flags] A B   (two run directories or two suite directories; B is the change)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return ExitUsage
	}
	opts := compare.Options{
		Method: stats.Method(*method), Level: *level, Seed: *seed,
		PassRateTolerance: *tolerance, Strict: *strict, GateMetrics: gate,
	}
	for _, f := range vary {
		opts.Vary = append(opts.Vary, compare.Field(f))
	}
	a, b := fs.Arg(0), fs.Arg(1)
	kind, err := compare.DirKind(a)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	var (
		result interface{ WriteText(io.Writer) error }
		failed bool
	)
	if kind == compare.KindRun {
		c, err := compare.Runs(ctx, a, b, opts)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		result, failed = c, c.Gate.Failed
	} else {
		c, err := compare.Suites(ctx, a, b, opts)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		result, failed = c, c.Gate.Failed
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(result); err != nil {
			e.errorf("%v", err)
			return ExitUsage
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
