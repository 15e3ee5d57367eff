package optimize

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/record"
)

// Budget bounds the search (proposals and train evaluations); the
// held-out experiment that follows spends the campaign's own budget.
// Zero fields take their defaults: the campaign budget's candidates, runs,
// tokens, cost and wall time (see experiment.DefaultBudget), and twice
// the candidates for the proposal calls.
type Budget struct {
	MaxCandidates    int           // the baseline included
	MaxProposalCalls int           // calls of the optimizer, failed ones included
	MaxRuns          int           // train runs
	MaxTokens        int64         // train runs' and proposals' tokens
	MaxCostUSD       float64       // train runs' and proposals' cost
	MaxWallTime      time.Duration // active time, on Options.Now
}

// Options tune a search.
type Options struct {
	// RunsRoot is where the search ledger (<RunsRoot>/.optimize) and the
	// held-out experiment go; default ".lux-runs".
	RunsRoot    string
	Concurrency int
	Budget      Budget
	// Patience stops the search after that many proposal calls in a row
	// that improved no train case; default 3.
	Patience int
	// TopK is how many frontier candidates (best train mean first) go on
	// to the held-out experiment; default 3.
	TopK int
	// MaxAlternatives is how many other frontier members the optimizer is
	// shown; default 2.
	MaxAlternatives int
	// StopFile, when it exists, stops the search before the next proposal
	// call; default <ledger>/STOP.
	StopFile string
	// Now is the clock the wall-time budget is measured on; default
	// time.Now.
	Now func() time.Time
	// Progress, when set, is told what the search does, a line at a time.
	Progress func(string)
	// Units, when set, is told as the units of the train evaluations and
	// of the held-out experiment start and finish.
	Units func(experiment.Progress)
	// Force runs a held-out experiment whose constraints its splits have
	// too few units to decide (see experiment.Options.Force).
	Force bool
}

// Result is a search's outcome.
type Result struct {
	Dir        string // the search ledger
	StopReason string
	Lineage    []Step
	// Spent is what the search spent, its proposals apart.
	Spent Spent
	// Final is the held-out experiment of the finalists (nil when no
	// candidate was proposed).
	Final *experiment.Result
}

// Spent is a search's spend: its proposal calls (their tokens and cost
// apart) and its train runs. Tokens and CostUSD are the totals the budget
// bounds.
type Spent struct {
	ProposalCalls   int     `json:"proposalCalls"`
	ProposalTokens  int64   `json:"proposalTokens"`
	ProposalCostUSD float64 `json:"proposalCostUsd"`
	TrainRuns       int     `json:"trainRuns"`
	Tokens          int64   `json:"tokens"`
	CostUSD         float64 `json:"costUsd"`
}

type spent struct {
	calls, runs    int
	tokens         int64
	cost           float64
	proposalTokens int64
	proposalCost   float64
	elapsedBase    time.Duration
	segmentStart   time.Time
}

type search struct {
	reg       *lux.Registry
	camp      *experiment.Campaign
	opt       Optimizer
	opts      Options
	dir       string
	j         *journal
	cands     []*cand
	spent     spent
	final     *Entry
	promoting []string
	stopped   string // the stop reason journaled with the finalists
}

// Search runs a reflective search over the campaign's mutable files and
// decides on held-out cases: it evaluates the baseline on the train
// split, then, until a budget, Patience or the stop file ends it, picks a
// parent from the per-case Pareto frontier of the train results, asks opt
// for proposals (shown only train cases), refuses those Check refuses,
// evaluates each new candidate on train, and journals every proposal,
// its parent, rationale and evaluation in the search ledger. The top
// frontier candidates then run, as variants, the campaign itself
// (experiment.Run): the paired clustered gates on validation and test
// (and the sequential rule when declared) decide what is promoted.
func Search(ctx context.Context, reg *lux.Registry, c *experiment.Campaign, opt Optimizer, opts Options) (*Result, error) {
	s, err := newSearch(reg, c, opt, opts)
	if err != nil {
		return nil, err
	}
	if p, err := experiment.Plan(ctx, reg, s.camp); err != nil {
		return nil, err
	} else if !p.Decidable && !opts.Force {
		return nil, fmt.Errorf("optimize: campaign %s: %w: the held-out gates could never promote a candidate (see lux optimize -plan; Options.Force runs it anyway)", c.ID, experiment.ErrUndecidable)
	}
	stamp := record.Timestamp(s.now())
	s.dir = filepath.Join(s.opts.RunsRoot, LedgerDir, stamp+"-"+record.Slug(c.ID))
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	if s.j, err = openJournal(s.dir); err != nil {
		return nil, err
	}
	defer s.j.close()
	campHash, err := campaignHash(s.camp)
	if err != nil {
		return nil, err
	}
	if err := s.add(Entry{Kind: "start", CampaignID: c.ID, Campaign: campHash}); err != nil {
		return nil, err
	}
	base, err := experiment.Capture(s.camp)
	if err != nil {
		return nil, err
	}
	s.cands = []*cand{{ID: experiment.BaselineID, Files: base.Files}}
	return s.run(ctx)
}

// Resume continues the search of ledger dir after a crash or a cancel: it
// evaluates candidates proposed but not evaluated, never proposes again
// what the journal holds, and goes on. It refuses a changed campaign.
func Resume(ctx context.Context, reg *lux.Registry, dir string, c *experiment.Campaign, opt Optimizer, opts Options) (*Result, error) {
	opts.RunsRoot = filepath.Dir(filepath.Dir(dir)) // <runsRoot>/.optimize/<search>
	s, err := newSearch(reg, c, opt, opts)
	if err != nil {
		return nil, err
	}
	s.dir = dir
	entries, err := ReadJournal(dir)
	if err != nil {
		return nil, err
	}
	h, err := campaignHash(s.camp)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 || entries[0].Kind != "start" || entries[0].Campaign != h {
		return nil, fmt.Errorf("optimize: resume %s: the campaign changed since the search started (or the ledger is not a search's)", dir)
	}
	base, err := experiment.Capture(s.camp)
	if err != nil {
		return nil, err
	}
	s.cands = []*cand{{ID: experiment.BaselineID, Files: base.Files}}
	if err := s.replay(entries); err != nil {
		return nil, err
	}
	if s.j, err = openJournal(dir); err != nil {
		return nil, err
	}
	defer s.j.close()
	return s.run(ctx)
}

func newSearch(reg *lux.Registry, c *experiment.Campaign, opt Optimizer, opts Options) (*search, error) {
	if c.Optimizer == nil { // a campaign built in Go for a Go optimizer
		cc := *c
		cc.Optimizer = &experiment.OptimizerSpec{}
		c = &cc
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Splits.Train == nil {
		return nil, fmt.Errorf("optimize: campaign %s: splits.train: a search needs a train split (the only cases the optimizer sees); add one", c.ID)
	}
	if opt == nil {
		return nil, errors.New("optimize: no optimizer")
	}
	if opts.RunsRoot == "" {
		opts.RunsRoot = record.DefaultRoot
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	b, cb, d := &opts.Budget, c.Budget, experiment.DefaultBudget
	b.MaxCandidates = first(b.MaxCandidates, cb.MaxCandidates, d.MaxCandidates)
	b.MaxProposalCalls = first(b.MaxProposalCalls, 2*b.MaxCandidates)
	b.MaxRuns = first(b.MaxRuns, cb.MaxRuns, d.MaxRuns)
	b.MaxTokens = first(b.MaxTokens, cb.MaxTokens, d.MaxTokens)
	b.MaxCostUSD = first(b.MaxCostUSD, cb.MaxCostUSD, d.MaxCostUSD)
	b.MaxWallTime = first(b.MaxWallTime, time.Duration(cb.MaxWallTime), time.Duration(d.MaxWallTime))
	opts.Patience = first(opts.Patience, 3)
	opts.TopK = first(opts.TopK, 3)
	opts.MaxAlternatives = first(opts.MaxAlternatives, 2)
	return &search{reg: reg, camp: c, opt: opt, opts: opts, spent: spent{segmentStart: opts.Now()}}, nil
}

func first[T ~int | ~int64 | ~float64](vs ...T) T {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

func campaignHash(c *experiment.Campaign) (string, error) {
	b, err := jsonMarshal(c)
	if err != nil {
		return "", err
	}
	return sha(b), nil
}

func (s *search) now() time.Time { return s.opts.Now() }

func (s *search) elapsed() time.Duration {
	return s.spent.elapsedBase + s.now().Sub(s.spent.segmentStart)
}

func (s *search) add(e Entry) error {
	e.ElapsedMs = s.elapsed().Milliseconds()
	e.At = s.now().UTC()
	return s.j.add(e)
}

func (s *search) progress(format string, args ...any) {
	if s.opts.Progress != nil {
		s.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// remaining is what the search may still spend.
func (s *search) remaining() Remaining {
	b, sp := s.opts.Budget, s.spent
	return Remaining{
		Candidates: b.MaxCandidates - len(s.cands), ProposalCalls: b.MaxProposalCalls - sp.calls,
		Runs: b.MaxRuns - sp.runs, Tokens: b.MaxTokens - sp.tokens, CostUSD: b.MaxCostUSD - sp.cost,
		WallTime: b.MaxWallTime - s.elapsed(),
	}
}

// stopReason says why the search must stop, or "".
func (s *search) stopReason(stale int) string {
	r := s.remaining()
	switch {
	case r.Candidates <= 0:
		return fmt.Sprintf("the candidates budget (%d) is used up", s.opts.Budget.MaxCandidates)
	case r.ProposalCalls <= 0:
		return fmt.Sprintf("the proposal calls budget (%d) is used up", s.opts.Budget.MaxProposalCalls)
	case r.Runs <= 0:
		return fmt.Sprintf("the runs budget (%d) is used up", s.opts.Budget.MaxRuns)
	case r.Tokens <= 0:
		return fmt.Sprintf("the tokens budget (%d) is used up", s.opts.Budget.MaxTokens)
	case r.CostUSD <= 0:
		return fmt.Sprintf("the cost budget ($%.2f) is used up", s.opts.Budget.MaxCostUSD)
	case r.WallTime <= 0:
		return fmt.Sprintf("the wall time budget (%s) is used up", s.opts.Budget.MaxWallTime)
	case stale >= s.opts.Patience:
		return fmt.Sprintf("no train case improved in %d proposal calls in a row", stale)
	}
	if _, err := os.Stat(s.stopFile()); err == nil {
		return "the stop file " + s.stopFile() + " exists"
	}
	return ""
}

func (s *search) stopFile() string {
	if s.opts.StopFile != "" {
		return s.opts.StopFile
	}
	return filepath.Join(s.dir, "STOP")
}

func (s *search) byID(id string) *cand {
	for _, c := range s.cands {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *search) account(e Entry) {
	switch e.Kind {
	case "proposal":
		s.spent.calls = max(s.spent.calls, e.Call)
		s.spent.proposalTokens += e.Usage.Total()
		s.spent.proposalCost += e.CostUSD
		s.spent.tokens += e.Usage.Total()
		s.spent.cost += e.CostUSD
	case "evaluation":
		s.spent.runs += e.Runs
		s.spent.tokens += e.Tokens
		s.spent.cost += e.CostUSD
	}
}

func (s *search) run(ctx context.Context) (*Result, error) {
	if err := s.evaluatePending(ctx); err != nil {
		return nil, err
	}
	reason := ""
	for s.final == nil && s.promoting == nil {
		if reason = s.stopReason(s.stale()); reason != "" {
			break
		}
		if err := s.iterate(ctx); err != nil {
			return nil, err
		}
	}
	if s.final == nil && s.promoting == nil {
		s.progress("search stopped: %s", reason)
	}
	return s.promote(ctx, reason)
}

// iterate makes one proposal call and evaluates what it proposes.
func (s *search) iterate(ctx context.Context) error {
	fr := frontier(s.cands)
	cur := fr[s.spent.calls%len(fr)]
	in, err := s.input(cur, fr)
	if err != nil {
		return err
	}
	call := s.spent.calls + 1
	s.progress("proposal call %d: parent %s", call, cur.ID)
	props, perr := s.opt.Propose(ctx, in)
	if ctx.Err() != nil {
		return errors.Join(errAborted, ctx.Err())
	}
	if perr != nil {
		e := Entry{Kind: "proposal", Call: call, Parent: cur.ID, Error: perr.Error()}
		s.account(e)
		s.progress("proposal call %d failed: %v", call, perr)
		return s.add(e)
	}
	if len(props) == 0 {
		e := Entry{Kind: "proposal", Call: call, Parent: cur.ID, Error: "the optimizer proposed nothing"}
		s.account(e)
		return s.add(e)
	}
	for _, p := range props {
		e := Entry{Kind: "proposal", Call: call, Parent: cur.ID, Rationale: p.Rationale, Files: p.Files, Usage: p.Usage}
		if p.CostUSD != nil {
			e.CostUSD = *p.CostUSD
		}
		var c *cand
		switch err := Check(in, p, func(path string) bool { return experiment.IsMutable(s.camp, path) }); {
		case err != nil:
			e.Error = err.Error()
		case s.remaining().Candidates <= 0:
			e.Error = "refused: the candidates budget is used up"
		default:
			files := maps.Clone(cur.Files)
			maps.Copy(files, p.Files)
			if dup := s.duplicate(files); dup != "" {
				e.Error = "a duplicate of candidate " + dup
				break
			}
			c = &cand{ID: fmt.Sprintf("c%d", len(s.cands)), Parent: cur.ID, Rationale: p.Rationale, Call: call, Files: files}
			e.Candidate = c.ID
		}
		s.account(e)
		if err := s.add(e); err != nil {
			return err
		}
		if c == nil {
			s.progress("proposal of call %d not kept: %s", call, e.Error)
			continue
		}
		s.cands = append(s.cands, c)
		if err := s.evaluatePending(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *search) duplicate(files map[string]string) string {
	for _, c := range s.cands {
		if maps.Equal(c.Files, files) {
			return c.ID
		}
	}
	return ""
}

// input builds what the optimizer is shown: the train split only.
func (s *search) input(cur *cand, fr []*cand) (*Input, error) {
	obs, err := s.observations(cur)
	if err != nil {
		return nil, err
	}
	in := &Input{Campaign: s.camp.ID, Mutable: slices.Clone(s.camp.Subject.Mutable),
		Current: Candidate{ID: cur.ID, Parent: cur.Parent, Files: maps.Clone(cur.Files)}, Observations: obs, Remaining: s.remaining()}
	for _, a := range fr {
		if a == cur || len(in.Alternatives) >= s.opts.MaxAlternatives {
			continue
		}
		aobs, err := s.observations(a)
		if err != nil {
			return nil, err
		}
		in.Alternatives = append(in.Alternatives, Alternative{Candidate: Candidate{ID: a.ID, Parent: a.Parent, Files: maps.Clone(a.Files)}, Observations: aobs})
	}
	return in, nil
}
