package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

func gradeCommand() command {
	return command{
		name:    "grade",
		args:    "[flags] RUN_DIR | -labels DATASET.json [RUN_DIR...]",
		summary: "grade a recorded run again with the current assertions; the new grading goes beside the old one",
		doc: `Grade the run recorded in RUN_DIR again, offline, from its frozen evidence
(events, artifacts): with the assertions of its case.json, or of -case, and
the plugins and harness model (lux.json) of today. The grading is written to
RUN_DIR/gradings/<time>.json; grading.json is never changed. A record whose
files do not match its seal, or whose evidence changed, is refused.
Exit status 1 unless the new grading passes.

With -labels, grade every run labelled in the dataset (or the RUN_DIRs
given) and report how the assertions agree with the labels: a confusion
table for the case verdict and each labelled assertion, agreement, Cohen's
kappa and Krippendorff's alpha with bootstrap intervals, and the score's
mean absolute error. -case applies to the labelled runs of its case.`,
		setup: func(fs *flag.FlagSet) action {
			var proj projectFlags
			proj.register(fs, true)
			casePath := fs.String("case", "", "grade with this case file instead of the recorded case.json (same case, new or changed assertions)")
			asJSON := jsonFlag(fs, "the grading (schema lux.grade/v1; with -labels lux.grade-labels/v1)")
			withLabels := registerLabelFlags(fs)
			return func(ctx context.Context, e *env, args []string) int {
				if withLabels.dataset != "" {
					return withLabels.run(ctx, e, &proj, *casePath, *asJSON, args)
				}
				if len(args) != 1 {
					e.errorf("grade: give one run directory, e.g. lux grade .lux-runs/hello/claude-code/20260101T120000Z (lux view lists them)")
					return ExitUsage
				}
				var opts orchestrator.Options
				if code := proj.apply(e, &opts); code != ExitOK {
					return code
				}
				var replacement *lux.Case
				if *casePath != "" {
					c, err := lux.ReadCase(*casePath, (*lux.Case).Validate)
					if err != nil {
						e.errorf("-case: %v", err)
						return ExitUsage
					}
					replacement = c
				}
				o := orchestrator.New(e.reg, opts)
				g, path, err := o.Regrade(ctx, args[0], replacement)
				if err != nil {
					e.errorf("grade: %v", err)
					return ExitUsage
				}
				m, _, err := record.ReadMetadata(args[0])
				if err != nil {
					e.errorf("grade: %v", err)
					return ExitUsage
				}
				return writeGrading(e, g, record.RunVerdict(m, g.Report), path, *asJSON)
			}
		},
	}
}

// gradeReport is what lux grade -json prints.
type gradeReport struct {
	Schema  string            `json:"schema"`
	Path    string            `json:"path"`
	Verdict record.Verdict    `json:"verdict"`
	Grading *record.Regrading `json:"grading"`
}

// writeGrading prints the new grading g and the run's verdict under it.
func writeGrading(e *env, g *record.Regrading, verdict record.Verdict, path string, asJSON bool) int {
	if asJSON {
		if code := e.writeJSON(gradeReport{Schema: "lux.grade/v1", Path: path, Verdict: verdict, Grading: g}); code != ExitOK {
			return code
		}
	} else {
		line := "grading: " + strings.ToUpper(string(verdict))
		if verdict == record.VerdictUngraded {
			line = "grading: ungraded"
		}
		if s := g.Report.Score; s != nil {
			line += fmt.Sprintf(", score %.0f%%", *s*100)
		}
		fmt.Fprintln(e.stdout, line)
		for _, a := range g.Report.Assertions {
			mark := "ok  "
			switch {
			case a.Error != "":
				mark = "err "
			case !a.Passed:
				mark = "FAIL"
			}
			text := a.Comment
			if a.Error != "" {
				text = a.Error
			}
			fmt.Fprintf(e.stdout, "  %s %s (score %.2f): %s\n", mark, a.ID, a.Score, text)
		}
		if inc := g.Report.Incomplete; inc != nil {
			fmt.Fprintf(e.stdout, "  incomplete (%s): %s\n", inc.Phase, inc.Reason)
		}
		if u := g.JudgeUsage; u.Calls > 0 {
			fmt.Fprintf(e.stdout, "  judge: %d calls, %d tokens, $%.4f reported", u.Calls, u.Total(), u.CostUSD)
			if u.UnpricedCalls > 0 {
				fmt.Fprintf(e.stdout, " (%d unpriced)", u.UnpricedCalls)
			}
			fmt.Fprintln(e.stdout)
		}
		if g.RecordSeal != "" {
			fmt.Fprintln(e.stdout, "  seal:", sealText(g.RecordSeal))
		}
		fmt.Fprintln(e.stdout, "saved:", filepath.Clean(path))
	}
	if verdict != "pass" {
		return ExitFailed
	}
	return ExitOK
}
