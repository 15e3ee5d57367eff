package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// labelFlags are lux grade's flags for measuring the assertions against a
// label dataset (lux grade -labels DATASET [RUN_DIR...]).
type labelFlags struct {
	dataset   string
	recorded  bool
	seed      uint64
	resamples int
}

// registerLabelFlags adds -labels and its companions to lux grade's flags.
func registerLabelFlags(fs *flag.FlagSet) *labelFlags {
	f := &labelFlags{}
	fs.StringVar(&f.dataset, "labels", "", "report how the assertions agree with the labels of this dataset (lux annotate writes it): regrade every labelled run, or those of the RUN_DIRs given, and compare")
	fs.BoolVar(&f.recorded, "recorded", false, "with -labels: compare each run's recorded grading.json instead of regrading")
	fs.Uint64Var(&f.seed, "seed", 1, "with -labels: the seed of the bootstrap intervals")
	fs.IntVar(&f.resamples, "resamples", stats.DefaultResamples, "with -labels: bootstrap resamples")
	return f
}

// GradeLabelsReport is what lux grade -labels -json prints.
type GradeLabelsReport struct {
	Schema  string `json:"schema"`
	Dataset string `json:"dataset"`
	// Grading says what the labels were compared with: "regraded" (the
	// current assertions, offline, on each run's frozen evidence) or
	// "recorded" (each run's grading.json).
	Grading string         `json:"grading"`
	Runs    int            `json:"runs"` // runs graded
	Labels  int            `json:"labels"`
	Skipped []SkippedLabel `json:"skipped"`
	Report  labels.Report  `json:"agreement"`
	// Unit names the independent unit of the intervals.
	Unit       string         `json:"unit"`
	JudgeUsage lux.ModelUsage `json:"judgeUsage"`
	// Annotators is Krippendorff's alpha among the people who labelled the
	// same runs (case verdicts); absent when no run has two labels.
	Annotators *labels.Coefficient `json:"annotators,omitempty"`
}

// SkippedLabel is a label that could not be compared, and why.
type SkippedLabel struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// run regrades (or reads) the labelled runs and reports the agreement.
// The exit status is 0 once the report is written: disagreement is the
// finding, not a failure.
func (f *labelFlags) run(ctx context.Context, e *env, proj *projectFlags, casePath string, asJSON bool, args []string) int {
	d, err := labels.Load(f.dataset)
	if err != nil {
		e.errorf("grade: -labels: %v", err)
		return ExitUsage
	}
	var opts orchestrator.Options
	if code := proj.apply(e, &opts); code != ExitOK {
		return code
	}
	var replacement *lux.Case
	if casePath != "" {
		if replacement, err = lux.ReadCase(casePath, (*lux.Case).Validate); err != nil {
			e.errorf("-case: %v", err)
			return ExitUsage
		}
	}
	only := map[string]bool{}
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			e.errorf("grade: %v", err)
			return ExitUsage
		}
		only[abs] = true
	}
	o := orchestrator.New(e.reg, opts)
	rep := GradeLabelsReport{Schema: "lux.grade-labels/v1", Dataset: f.dataset, Grading: "regraded", Skipped: []SkippedLabel{},
		Unit: "label (labels of one run by several people are separate units)"}
	if f.recorded {
		rep.Grading = "recorded"
	}
	gradings := map[string]*record.Grading{} // by run directory: several labels of one run grade it once
	failed := map[string]string{}
	var items []labels.Graded
	var considered []labels.Label
	matched := map[string]bool{}
	for _, l := range d.Labels {
		dir := labels.RunDir(f.dataset, l)
		abs, _ := filepath.Abs(dir)
		if len(only) > 0 && !only[abs] {
			continue
		}
		matched[abs] = true
		considered = append(considered, l)
		if why, ok := failed[abs]; ok {
			rep.Skipped = append(rep.Skipped, SkippedLabel{l.ID, why})
			continue
		}
		g, seen := gradings[abs]
		if !seen {
			var why string
			g, why = f.grading(ctx, o, dir, l, replacement, &rep.JudgeUsage)
			if why != "" {
				failed[abs] = why
				rep.Skipped = append(rep.Skipped, SkippedLabel{l.ID, why})
				continue
			}
			gradings[abs] = g
			rep.Runs++
		}
		items = append(items, labels.Graded{Label: l, Grading: g})
	}
	for a := range only {
		if !matched[a] {
			e.errorf("grade: -labels: no label of %s is for the run %s", f.dataset, a)
			return ExitUsage
		}
	}
	if ctx.Err() != nil {
		e.errorf("grade: %v", ctx.Err())
		return ExitInterrupted
	}
	rep.Labels = len(items)
	cfg := stats.Config{Seed: f.seed, Resamples: f.resamples}
	rep.Report = labels.Agree(items, cfg)
	if c, ok := labels.AnnotatorAgreement(considered, cfg); ok {
		rep.Annotators = &c
	}
	if asJSON {
		return e.writeJSON(rep)
	}
	rep.writeText(e.stdout)
	return ExitOK
}

// grading regrades the run of l (or reads its grading.json with
// -recorded), after checking it is the run that was labelled. A reason
// is returned instead when it cannot be compared.
func (f *labelFlags) grading(ctx context.Context, o *orchestrator.Orchestrator, dir string, l labels.Label, replacement *lux.Case, usage *lux.ModelUsage) (*record.Grading, string) {
	meta, recorded, err := record.ReadMetadata(dir)
	if err != nil {
		return nil, err.Error()
	}
	if meta.RunID != l.RunID {
		return nil, fmt.Sprintf("the run in %s is %s, not the labelled run %s", dir, meta.RunID, l.RunID)
	}
	if l.Evidence != nil && (meta.Evidence == nil || *meta.Evidence != *l.Evidence) {
		return nil, "the run's evidence fingerprint differs from the one labelled"
	}
	if f.recorded {
		if recorded == nil {
			return nil, "the run has no grading.json"
		}
		return recorded, ""
	}
	var c *lux.Case
	if replacement != nil && replacement.CanonicalID() == meta.CaseID {
		c = replacement
	}
	g, _, err := o.Regrade(ctx, dir, c)
	if err != nil {
		return nil, err.Error()
	}
	*usage = usage.Add(g.JudgeUsage)
	return g.Report, ""
}

func (r *GradeLabelsReport) writeText(w io.Writer) {
	how := "the runs regraded with the current assertions"
	if r.Grading == "recorded" {
		how = "the runs' recorded gradings"
	}
	fmt.Fprintf(w, "labels: %s: %d labels of %d runs, compared with %s\n", r.Dataset, r.Labels, r.Runs, how)
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.ID, s.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-20s %4s %4s %4s %4s %4s %5s  %-7s %-24s %-24s %s\n", "subject", "n", "TP", "FP", "FN", "TN", "abst", "agree", "kappa", "alpha", "score MAE")
	tables := append([]labels.Table{r.Report.Case}, r.Report.Assertions...)
	var notes []string
	warned := map[string]bool{}
	for _, t := range tables {
		for _, c := range []labels.Coefficient{t.Kappa, t.Alpha} {
			for _, w := range c.Warnings {
				code, _, _ := strings.Cut(w, ":")
				warned[code] = true
			}
		}
		mae := "-"
		if t.Score != nil {
			mae = fmt.Sprintf("%.3f (n=%d, alpha %s)", t.Score.MAE, t.Score.N, coefText(t.Score.Alpha))
		}
		fmt.Fprintf(w, "%-20s %4d %4d %4d %4d %4d %5d  %-7s %-24s %-24s %s\n", textline.One(t.Subject, 20), t.N(), t.TP, t.FP, t.FN, t.TN,
			t.Abstained+t.Missing, pct(t.Agreement), coefText(t.Kappa), coefText(t.Alpha), mae)
		if t.Missing > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d labelled runs have no such grading (assertion removed, or the run was never graded)", t.Subject, t.Missing))
		}
		if t.Kappa.Undefined != "" && t.N() > 0 {
			notes = append(notes, fmt.Sprintf("%s: no kappa: %s", t.Subject, t.Kappa.Undefined))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "TP: labelled pass, graded pass; FP: labelled fail, graded pass; FN: labelled pass, graded fail; TN: both fail; abst: no verdict from the grading.")
	if iv := r.Report.Case.Kappa; iv.Estimate != nil {
		fmt.Fprintf(w, "kappa: Cohen's; alpha: Krippendorff's (nominal; interval for scores); [%g%% %s over labels, %d resamples]\n", 100*iv.Level, iv.Method, iv.Resamples)
	}
	if warned[string(stats.WarnFewUnits)] {
		notes = append(notes, fmt.Sprintf("fewer than %d labels behind some intervals: bootstrap intervals that small under-cover; label more runs (-json lists each warning)", stats.FewUnits))
	}
	if warned[string(stats.WarnDegenerate)] {
		notes = append(notes, "some resamples drew labels of one category only, where kappa or alpha is undefined; they are left out, so those intervals are optimistic")
	}
	if a := r.Annotators; a != nil {
		if a.Estimate == nil {
			fmt.Fprintf(w, "annotators: no alpha among the people who labelled the same runs: %s\n", a.Undefined)
		} else {
			fmt.Fprintf(w, "annotators: Krippendorff's alpha among the people who labelled the same runs (case verdicts) %s over %d runs\n", coefText(*a), a.Units)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, "note: "+n)
	}
	if u := r.JudgeUsage; u.Calls > 0 {
		fmt.Fprintf(w, "judge: %d calls, %d tokens, $%.4f reported\n", u.Calls, u.Total(), u.CostUSD)
	}
}

func pct(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

func coefText(c labels.Coefficient) string {
	if c.Estimate == nil {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf("%.2f [%.2f, %.2f]", *c.Estimate, *c.Lower, *c.Upper))
}
