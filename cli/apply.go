package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/luxeval/lux/experiment"
)

func applyCommand() command {
	return command{
		name:    "apply",
		args:    "[flags] LEDGER [CANDIDATE]",
		summary: "write an experiment's champion into the subject",
		doc: `Write the champion of a passed experiment into its subject root, each file
atomically, restoring the files already written if one write fails. Nothing
is written when the ledger does not support its decision, when CANDIDATE is
not the champion, or when the subject changed since the experiment measured
it (the changed files are named).`,
		setup: applyFlags,
	}
}

func applyFlags(fs *flag.FlagSet) action {
	asJSON := jsonFlag(fs, "what was applied (lux.experiment-apply/v1)")
	return func(ctx context.Context, e *env, args []string) int {
		if len(args) < 1 || len(args) > 2 {
			return e.usageError("apply", "give an experiment directory and optionally the candidate, got %d arguments", len(args))
		}
		cand := ""
		if len(args) == 2 {
			cand = args[1]
		}
		a, err := experiment.Apply(ctx, args[0], cand)
		if err != nil {
			e.errorf("%v", err)
			return ExitFailed
		}
		if *asJSON {
			return e.writeJSON(struct {
				Schema string `json:"schema"`
				*experiment.Applied
			}{"lux.experiment-apply/v1", a})
		}
		fmt.Fprintf(e.stdout, "applied candidate %s to %s (%d bytes): %s\n", a.Candidate, a.SubjectRoot, a.Bytes, strings.Join(a.Files, ", "))
		return ExitOK
	}
}
