package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/luxeval/lux/experiment"
)

func experimentCommand() command {
	return command{
		name:    "experiment",
		args:    "[flags] CAMPAIGN.experiment.json | -resume LEDGER | -plan CAMPAIGN.experiment.json",
		summary: "run a controlled experiment to a decision: promote a variant, retain the baseline, or reject",
		doc: `Run a campaign: every candidate (the subject's baseline and each variant) ×
profile × split × case × repetition as an ordinary run, then decide with the
paired effects against the baseline. Everything is kept in a ledger under
<runs-root>/.experiments; -resume continues one (after a crash, kill -9 or
Ctrl-C) and refuses when the campaign, the subject, a driver's identity or an
environment changed. A campaign profile that names a profile of the project
file ({"project": "NAME"}) takes its driver, answerer and environment from
lux.json (found from the working directory up), or the file given with -config. -plan prints the cases, the projected runs and whether
they fit the budget, without starting any agent (exit status 1 when not).

A constraint with a confidence interval needs a number of independent units
(cases, or clusters) below which not even the best result could pass it (6
for a pass-rate effect ≥ 0 at 95%): -plan names every such constraint with
its split and the units it has and needs, and exits 1; a run refuses the
campaign (exit 1). -force plans or runs it anyway; such a constraint then
ends "inconclusive", never "reject".
A campaign with "sequential" runs in rounds (one repetition of every case)
and stops each variant once its gates against the baseline are decided by an
anytime-valid test (sign test or confidence sequence): the output gives each
gate's e-value, anytime p-value and confidence sequence by round, and says
"decided after N of at most M runs (saved K)". -plan shows its worst case and,
under the alternative the campaign states (sequential.plan), the expected
spend.
Exit status 1 when the experiment does not pass (reject, inconclusive, a
budget exceeded).`,
		setup: experimentFlags,
	}
}

func experimentFlags(fs *flag.FlagSet) action {
	var root string
	runsRootFlag(fs, &root)
	resume := fs.String("resume", "", "continue the experiment of this ledger directory")
	plan := fs.Bool("plan", false, "print the plan and whether it fits the budget; start nothing")
	jobs := fs.Int("j", 1, "how many units run at once")
	quiet := fs.Bool("q", false, "no progress lines")
	var executor string
	executorFlag(fs, &executor)
	force := fs.Bool("force", false, "plan or run a campaign with a constraint its split has too few units to decide (it can only end inconclusive)")
	asJSON := jsonFlag(fs, "the report (lux.experiment-report/v1) or, with -plan, the plan (lux.experiment-plan/v1)")
	var proj projectFlags
	proj.register(fs, false)
	return func(ctx context.Context, e *env, args []string) int {
		startupOver()
		opts := experiment.Options{RunsRoot: root, Concurrency: *jobs, Force: *force}
		xroot := root
		if *resume != "" { // the runs go beside the ledger, <root>/.experiments/<id>
			if abs, err := filepath.Abs(*resume); err == nil {
				xroot = filepath.Dir(filepath.Dir(abs))
			}
		}
		x, closeX, xerr := e.executor(ctx, executor, xroot)
		if xerr != nil {
			e.errorf("experiment: %v", xerr)
			return ExitUsage
		}
		defer closeX()
		opts.Executor = x
		if !*quiet {
			opts.Progress = experimentProgress(e.stderr)
		}
		var (
			res *experiment.Result
			err error
		)
		switch {
		case *resume != "" && len(args) == 0:
			opts.RunsRoot = "" // the runs go beside the ledger
			c, code := resumedCampaign(e, &proj, *resume)
			if code != ExitOK {
				return code
			}
			res, err = experiment.Resume(ctx, e.reg, *resume, c, opts)
		case *resume == "" && len(args) == 1:
			file, code := proj.load(e)
			if code != ExitOK {
				return code
			}
			c, lerr := experiment.LoadWithProject(args[0], file)
			if lerr != nil {
				e.errorf("%v", lerr)
				return ExitUsage
			}
			if c.Optimizer != nil {
				e.errorf("experiment: campaign %s has an optimizer: run it with lux optimize", c.ID)
				return ExitUsage
			}
			if *plan {
				return showPlan(ctx, e, c, *asJSON, *force)
			}
			res, err = experiment.Run(ctx, e.reg, c, opts)
		default:
			return e.usageError("experiment", "give one campaign file, or -resume LEDGER alone")
		}
		if res == nil {
			e.errorf("%v", err)
			if errors.Is(err, experiment.ErrUndecidable) {
				return ExitFailed
			}
			return ExitUsage
		}
		if err != nil {
			e.errorf("%v", err)
		}
		rep, rerr := experiment.BuildReport(ctx, res.Dir)
		if rerr != nil {
			e.errorf("%v", rerr)
			return ExitUsage
		}
		if *asJSON {
			if code := e.writeJSON(rep); code != ExitOK {
				return code
			}
		} else {
			fmt.Fprintln(e.stdout, rep.Sentence)
			for _, v := range rep.Verdicts {
				if v != rep.Sentence {
					fmt.Fprintln(e.stdout, "  "+v)
				}
			}
			for _, l := range experiment.SequentialLines(rep.Gates) {
				fmt.Fprintln(e.stdout, "  "+l)
			}
			if lines := experiment.AgreementLines(rep.Agreement); len(lines) > 0 {
				fmt.Fprintln(e.stdout, "agreement with the labels:")
				for _, l := range lines {
					fmt.Fprintln(e.stdout, "  "+l)
				}
			}
			fmt.Fprintf(e.stdout, "ledger: %s\nreport: lux report '%s'\n", res.Dir, res.Dir)
		}
		if res.Manifest.Status != experiment.StatusPassed {
			return ExitFailed
		}
		return ExitOK
	}
}

// resumedCampaign reads the campaign file a ledger was started from, with
// the project file's profiles, as the run read it; nil (Resume reports
// why) for a ledger of a campaign built in Go or not a ledger at all.
func resumedCampaign(e *env, proj *projectFlags, dir string) (*experiment.Campaign, int) {
	m, err := experiment.ReadManifest(dir)
	if err != nil || m.CampaignPath == "" {
		return nil, ExitOK
	}
	file, code := proj.load(e)
	if code != ExitOK {
		return nil, code
	}
	c, err := experiment.LoadWithProject(m.CampaignPath, file)
	if err != nil {
		e.errorf("%v", err)
		return nil, ExitUsage
	}
	return c, ExitOK
}

func showPlan(ctx context.Context, e *env, c *experiment.Campaign, asJSON, force bool) int {
	p, err := experiment.Plan(ctx, e.reg, c)
	if err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	if asJSON {
		if code := e.writeJSON(p); code != ExitOK {
			return code
		}
	} else {
		p.WriteText(e.stdout)
	}
	if !p.FitsBudget || (!p.Decidable && !force) {
		return ExitFailed
	}
	return ExitOK
}

// experimentProgress prints one line per finished unit.
func experimentProgress(w io.Writer) func(experiment.Progress) {
	return func(p experiment.Progress) {
		if p.Round != nil {
			fmt.Fprintln(w, experiment.RoundLine(p.Round))
			return
		}
		if !p.Finished {
			return
		}
		verdict := "ungraded"
		switch {
		case p.Err != nil:
			verdict = "failed: " + p.Err.Error()
		case p.Passed != nil && *p.Passed:
			verdict = "pass"
		case p.Passed != nil:
			verdict = "fail"
		}
		fmt.Fprintf(w, "unit %d of %d  %s  %s  %s  %s #%d  %s  elapsed %s, about %s left\n", p.Done, p.Total, p.Candidate, p.Profile,
			p.Split, p.CaseID, p.Repetition, verdict, p.Elapsed.Round(time.Second), p.Estimate.Round(time.Second))
	}
}

// ExperimentListItem is one experiment of a `lux view` listing.
type ExperimentListItem struct {
	Dir        string            `json:"dir"`
	CampaignID string            `json:"campaignId,omitempty"`
	Status     experiment.Status `json:"status,omitempty"`
	Outcome    string            `json:"outcome,omitempty"` // promote, retain, reject, inconclusive; empty until decided
	Champion   string            `json:"champion,omitempty"`
	Units      int               `json:"units"` // finished
	Planned    int               `json:"planned"`
	Unreadable string            `json:"unreadable,omitempty"`
}

// listExperiments lists the latest limit experiments under root.
func listExperiments(root string, limit int) ([]ExperimentListItem, error) {
	dirs, err := experiment.List(root)
	if err != nil {
		return nil, err
	}
	out := []ExperimentListItem{}
	for _, dir := range latest(dirs, limit) {
		m, err := experiment.ReadManifest(dir)
		if err != nil {
			out = append(out, ExperimentListItem{Dir: dir, Unreadable: err.Error()})
			continue
		}
		it := ExperimentListItem{Dir: dir, CampaignID: m.CampaignID, Status: m.Status, Units: m.Spent.Units, Planned: m.Units}
		if m.Decision != nil {
			it.Outcome, it.Champion = m.Decision.Outcome, m.Decision.Champion
		}
		out = append(out, it)
	}
	return out, nil
}

func writeExperimentList(w io.Writer, items []ExperimentListItem) {
	if len(items) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPERIMENT\tCAMPAIGN\tSTATUS\tDECISION\tUNITS")
	for _, it := range items {
		if it.Unreadable != "" {
			fmt.Fprintf(tw, "%s\tunreadable: %s\t\t\t\n", it.Dir, it.Unreadable)
			continue
		}
		decision := it.Outcome
		if it.Champion != "" {
			decision += " " + it.Champion
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d of %d\n", it.Dir, it.CampaignID, it.Status, decision, it.Units, it.Planned)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
