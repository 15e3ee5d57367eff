package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
)

func doctorCommand() command {
	return command{
		name:    "doctor",
		args:    casesArgs,
		summary: "check that the commands the cases' drivers launch are installed",
		doc: `Check, without running any agent, that the cases can run here: the runs root
is writable, every case is valid, and every command the cases' drivers launch
is installed (with an install hint when one is missing), and the sandbox agents
would run in: its level, what the kernel refused, and a confined shell started
through it (-sandbox and -require-sandbox as for run). Exit status 1 when a
check fails.`,
		setup: func(fs *flag.FlagSet) action {
			var f caseFlags
			var proj projectFlags
			var root string
			var sf sandboxFlags
			f.register(fs)
			sf.register(fs)
			runsRootFlag(fs, &root)
			proj.register(fs, true)
			asJSON := jsonFlag(fs, "the checks (schema lux.doctor/v1)")
			return func(ctx context.Context, e *env, args []string) int {
				opts := orchestrator.Options{RunsRoot: root}
				if code := proj.defaultCases(e, &args); code != ExitOK {
					return code
				}
				// With no case named and no ./cases directory, the checks
				// that need no case still run.
				var cases []*lux.Case
				var diags []orchestrator.Diagnostic
				if _, err := os.Stat("cases"); len(args) == 0 && errors.Is(err, os.ErrNotExist) {
					if code := f.defaults(e, &opts); code != ExitOK {
						return code
					}
					diags = append(diags, orchestrator.Diagnostic{ID: "cases", Status: orchestrator.StatusWarn,
						Message: "no cases: no ./cases directory here", Detail: "name case files or directories to check them too: lux doctor path/to/cases"})
				} else {
					var code int
					if cases, code = f.load(e, args, &opts); code != ExitOK {
						return code
					}
				}
				if code := proj.apply(e, &opts); code != ExitOK {
					return code
				}
				if err := sf.options(&opts, io.Discard); err != nil {
					fmt.Fprintln(e.stderr, "lux doctor:", err)
					return ExitUsage
				}
				diags = append(orchestrator.New(e.reg, opts).Preflight(ctx, cases), diags...)
				diags = append(diags, sandboxDiagnostic(opts.Sandbox))
				healthy := orchestrator.Healthy(diags)
				if *asJSON {
					e.writeJSON(DoctorReport{Schema: "lux.doctor/v1", Healthy: healthy, Checks: diags})
				} else {
					for _, d := range diags {
						fmt.Fprintln(e.stdout, d)
					}
				}
				if !healthy {
					return ExitFailed
				}
				return ExitOK
			}
		},
	}
}

// DoctorReport is what `lux doctor -json` prints.
type DoctorReport struct {
	Schema  string                    `json:"schema"` // "lux.doctor/v1"
	Healthy bool                      `json:"healthy"`
	Checks  []orchestrator.Diagnostic `json:"checks"`
}
