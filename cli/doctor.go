package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux/orchestrator"
)

func doctorCmd(ctx context.Context, e *env, args []string) int {
	cmd := newCasesCommand(e, "doctor")
	asJSON := cmd.fs.Bool("json", false, "print the diagnostics as JSON")
	o, cases, code := cmd.load(e, args, false)
	if code != ExitOK {
		return code
	}
	diags := o.Preflight(ctx, cases)
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
