package optimize

import (
	"context"
	"fmt"
	"io"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/experiment"
)

// SearchPlan is what a search would do, before anything runs: its budget,
// and the plan of the campaign itself (the splits, their cases, whether its
// constraints can be decided) that the finalists will go through.
type SearchPlan struct {
	Budget   Budget                   `json:"budget"`
	Patience int                      `json:"patience"`
	TopK     int                      `json:"promotionTopK"`
	Campaign *experiment.CampaignPlan `json:"campaign"`
}

// Plan plans the search of c with opts (its defaults applied).
func Plan(ctx context.Context, reg *lux.Registry, c *experiment.Campaign, opts Options) (*SearchPlan, error) {
	s, err := newSearch(reg, c, noOptimizer{}, opts)
	if err != nil {
		return nil, err
	}
	p, err := experiment.Plan(ctx, reg, s.camp)
	if err != nil {
		return nil, err
	}
	return &SearchPlan{Budget: s.opts.Budget, Patience: s.opts.Patience, TopK: s.opts.TopK, Campaign: p}, nil
}

// WriteText prints the plan.
func (p *SearchPlan) WriteText(w io.Writer) {
	b := p.Budget
	fmt.Fprintf(w, "search on train: at most %d candidates (the baseline included), %d proposal calls, %d runs, %d tokens, $%.2f, %s; stops after %d calls that improve no train case\n",
		b.MaxCandidates, b.MaxProposalCalls, b.MaxRuns, b.MaxTokens, b.MaxCostUSD, b.MaxWallTime, p.Patience)
	fmt.Fprintf(w, "then the best %d frontier candidates run the campaign against the baseline (validation and test are never shown to the optimizer):\n", p.TopK)
	p.Campaign.WriteText(w)
}

type noOptimizer struct{}

func (noOptimizer) Propose(context.Context, *Input) ([]Proposal, error) { return nil, nil }
