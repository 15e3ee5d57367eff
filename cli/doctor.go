package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/luxeval/lux/orchestrator"
)

func doctorCmd(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("lux doctor", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var f runFlags
	f.register(fs)
	asJSON := fs.Bool("json", false, "print the diagnostics as JSON")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "Usage: lux doctor [flags] [case files or directories...]  (default: cases)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"cases"}
	}
	cases, err := LoadCases(paths, f.tags)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	f.quiet = true
	opts, err := f.options(e.stderr)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	diags := orchestrator.New(e.reg, opts).Preflight(ctx, cases)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(diags)
	} else {
		for _, d := range diags {
			fmt.Fprintln(e.stdout, d)
		}
	}
	if !orchestrator.Healthy(diags) {
		return ExitFailed
	}
	return ExitOK
}
