package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/optimize"
)

func optimizeCommand() command {
	return command{
		name:    "optimize",
		args:    "[flags] CAMPAIGN.json | -resume SEARCH-LEDGER CAMPAIGN.json | -plan CAMPAIGN.json",
		summary: "search for a better subject with an optimizer, then promote only what holds up on held-out cases",
		doc: `Search a campaign that has an "optimizer" block: a harness model (claude -p
or codex exec, optimizer.model) reads the current candidate's mutable files and
its train results (verdicts, failed assertions with comments, trimmed
trajectories) and proposes whole-file rewrites; each is run on the train split,
and the per-case Pareto frontier gives the parent of the next proposal. The
search stops on its budget (optimizer.maxProposalCalls, the campaign budget's
candidates, runs, tokens, cost and wall time, proposal tokens and cost
included), after optimizer.patience calls that improved no train case, or when
the file STOP exists in its ledger (<runs-root>/.optimize/...). Validation and
test cases are never shown to the optimizer: the best optimizer.promotionTopK
frontier candidates then run the campaign itself as its variants, and its
paired, clustered gates on validation and test (or its sequential rule) decide.
-resume continues a killed search without proposing again what its journal
holds. lux report on the held-out experiment's ledger shows the lineage;
lux apply applies its champion.
Exit status 1 when the held-out experiment does not pass.`,
		setup: optimizeFlags,
	}
}

func optimizeFlags(fs *flag.FlagSet) action {
	var root string
	runsRootFlag(fs, &root)
	resume := fs.String("resume", "", "continue the search of this ledger directory (<runs-root>/.optimize/...)")
	plan := fs.Bool("plan", false, "print the search budget and the campaign's plan; start nothing")
	jobs := fs.Int("j", 1, "how many units run at once")
	quiet := fs.Bool("q", false, "no progress lines")
	force := fs.Bool("force", false, "run a campaign with a constraint its split has too few units to decide")
	var proj projectFlags
	proj.register(fs, false)
	return func(ctx context.Context, e *env, args []string) int {
		startupOver()
		if len(args) != 1 {
			return e.usageError("optimize", "give one campaign file (with -resume, the campaign the search was started with)")
		}
		file, code := proj.load(e)
		if code != ExitOK {
			return code
		}
		c, err := experiment.LoadWithProject(args[0], file)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		spec := c.Optimizer
		if spec == nil {
			e.errorf("optimize: campaign %s has no \"optimizer\" block: add one, e.g. {\"optimizer\": {\"model\": {\"provider\": \"claude-code\"}}}, or run it with lux experiment", c.ID)
			return ExitUsage
		}
		opts := optimize.Options{RunsRoot: root, Concurrency: *jobs, Force: *force, Patience: spec.Patience, TopK: spec.PromotionTopK,
			Budget: optimize.Budget{MaxProposalCalls: spec.MaxProposalCalls}}
		if !*quiet {
			opts.Progress = func(s string) { fmt.Fprintln(e.stderr, s) }
			opts.Units = experimentProgress(e.stderr)
		}
		if *plan {
			p, err := optimize.Plan(ctx, e.reg, c, opts)
			if err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			p.WriteText(e.stdout)
			if !p.Campaign.FitsBudget || (!p.Campaign.Decidable && !*force) {
				return ExitFailed
			}
			return ExitOK
		}
		model, err := harness.New(spec.Model)
		if err != nil {
			e.errorf("optimize: optimizer.model: %v", err)
			return ExitUsage
		}
		opt := &optimize.Reflective{Model: model, ProposalsPerCall: spec.ProposalsPerCall, MaxPromptChars: spec.MaxPromptChars}
		var res *optimize.Result
		if *resume != "" {
			res, err = optimize.Resume(ctx, e.reg, *resume, c, opt, opts)
		} else {
			res, err = optimize.Search(ctx, e.reg, c, opt, opts)
		}
		if err != nil {
			e.errorf("%v", err)
			if errors.Is(err, experiment.ErrUndecidable) {
				return ExitFailed
			}
			return ExitUsage
		}
		entries, err := optimize.ReadJournal(res.Dir)
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		fmt.Fprintf(e.stdout, "search stopped: %s\n", res.StopReason)
		fmt.Fprintf(e.stdout, "spent: %d proposal calls (%d tokens, $%.4f), %d train runs\n",
			res.Spent.ProposalCalls, res.Spent.ProposalTokens, res.Spent.ProposalCostUSD, res.Spent.TrainRuns)
		fmt.Fprintln(e.stdout, "lineage:")
		for _, l := range optimize.LineageLines(entries) {
			fmt.Fprintln(e.stdout, "  "+l)
		}
		fmt.Fprintf(e.stdout, "search ledger: %s\n", res.Dir)
		if res.Final == nil {
			fmt.Fprintln(e.stdout, "no candidate was proposed: the baseline is retained")
			return ExitFailed
		}
		fmt.Fprintf(e.stdout, "held-out decision: %s\n", res.Final.Sentence())
		fmt.Fprintf(e.stdout, "ledger: %s\nreport: lux report '%s'\n", res.Final.Dir, res.Final.Dir)
		if res.Final.Manifest.Status != experiment.StatusPassed {
			return ExitFailed
		}
		return ExitOK
	}
}
