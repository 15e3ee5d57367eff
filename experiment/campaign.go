package experiment

import (
	"encoding/json"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/stats"
)

// Campaign is a controlled experiment: which files of a subject may change
// (and how each variant changes them), the conditions the arms run under
// (profiles), the cases of each split, how often each case runs, what a
// candidate must satisfy, and what may be spent. Build one in Go or load a
// *.experiment.json file with Load; either way Validate (called by Run,
// Plan and Load) checks every field and cross-field rule at once.
type Campaign struct {
	ID      string  `json:"id"`
	Subject Subject `json:"subject"`
	// Profiles are the arms' conditions by name: the driver (and its
	// config), the answerer and the declared environment.
	Profiles    map[string]Profile `json:"profiles"`
	Splits      Splits             `json:"splits"`
	Repetitions Repetitions        `json:"repetitions"`
	Variants    []Variant          `json:"variants,omitempty"`
	Objectives  Objectives         `json:"objectives"`
	Budget      Budget             `json:"budget"`
	// Sequential, when set, runs the campaign in rounds and stops each
	// variant as soon as its gates against the baseline are decided.
	Sequential *Sequential `json:"sequential,omitempty"`
	// Optimizer, when set, makes the campaign a search (lux optimize,
	// package optimize): an optimizer proposes the variants from train
	// results, and the best go through this campaign's held-out gates.
	Optimizer *OptimizerSpec `json:"optimizer,omitempty"`
	// Grader, when set, makes the campaign a grader experiment: the
	// subject is rubric files, and each candidate regrades labelled,
	// frozen runs instead of running agents (see GraderSpec).
	Grader *GraderSpec    `json:"grader,omitempty"`
	Meta   map[string]any `json:"meta,omitempty"`

	// Dir is the directory relative paths (subject root, case patterns)
	// are resolved against: the campaign file's directory when loaded.
	Dir string `json:"-"`
	// Path is the file the campaign was loaded from, if any.
	Path string `json:"-"`
}

// Subject is the files a user ships that shape the agent.
type Subject struct {
	// Root is the subject's directory, relative to the campaign's Dir.
	Root string `json:"root"`
	// Mutable are the globs (see package doc) of the files candidates may
	// change; they must match at least one file.
	Mutable []string `json:"mutable"`
	// Exclude are globs of files left out of every candidate's tree, in
	// addition to DefaultExclude.
	Exclude []string `json:"exclude,omitempty"`
	// Validate are commands run in each candidate's tree before any agent
	// runs against it; a command that fails makes the candidate invalid.
	Validate []Command `json:"validate,omitempty"`
}

// OptimizerSpec configures the search of a campaign with an optimizer (see
// package optimize); zero fields take the search's defaults.
type OptimizerSpec struct {
	// Algorithm is "reflective" (the default and only built-in one).
	Algorithm string `json:"algorithm,omitempty"`
	// Model is the harness model that proposes (harness.Config: provider
	// claude-code or codex, model, command, ...).
	Model harness.Config `json:"model,omitzero"`
	// MaxProposalCalls bounds the optimizer's calls, failed ones included.
	MaxProposalCalls int `json:"maxProposalCalls,omitempty"`
	// Patience stops the search after that many calls that improved no
	// train case.
	Patience int `json:"patience,omitempty"`
	// PromotionTopK is how many frontier candidates go on to the held-out
	// gates.
	PromotionTopK int `json:"promotionTopK,omitempty"`
	// ProposalsPerCall (1..4) and MaxPromptChars bound each call.
	ProposalsPerCall int `json:"proposalsPerCall,omitempty"`
	MaxPromptChars   int `json:"maxPromptChars,omitempty"`
}

// DefaultExclude are always left out of candidate trees: version control,
// run records, secrets and installed dependencies.
var DefaultExclude = []string{
	".git", ".git/**", ".lux-runs", ".lux-runs/**", "**/.lux-runs", "**/.lux-runs/**",
	".env", ".env.*", "**/.env", "**/.env.*", ".npmrc", "**/.npmrc", ".pypirc", "**/.pypirc",
	"node_modules", "node_modules/**", "**/node_modules", "**/node_modules/**",
}

// Command is a validation command: run in the candidate's tree with a
// minimal environment, in its own process group, within Timeout.
type Command struct {
	Command string       `json:"command"`
	Args    []string     `json:"args,omitempty"`
	Timeout lux.Duration `json:"timeout,omitempty"` // default 2m
}

// Profile is one arm's conditions.
type Profile struct {
	// Project names a profile of the project file (lux.json) whose driver,
	// answerer and environment this profile takes where it sets none of
	// its own (see LoadWithProject), so an experiment's arms are the
	// profiles `lux run -profile` uses.
	Project string `json:"project,omitempty"`
	// Driver runs the agent: its config passes through the driver's
	// experiment Prepare, and its Identity is recorded in the ledger.
	Driver   *lux.PluginRef `json:"driver,omitempty"`
	Answerer *lux.PluginRef `json:"answerer,omitempty"`
	// Environment declares where the agent runs; recorded in every run.
	Environment json.RawMessage `json:"environment,omitempty"`
	// Queue names where the arm's units go when the experiment runs
	// distributed (a Temporal task queue; see orchestrator.Options.Queue);
	// empty: the executor's own. Part of the campaign: a resume with
	// another queue is refused as a changed campaign.
	Queue string `json:"queue,omitempty"`
}

// Splits select the cases of each split. Validation is required; a case
// and a cluster may belong to one split only.
type Splits struct {
	Train      *Selector `json:"train,omitempty"`
	Validation *Selector `json:"validation"`
	Test       *Selector `json:"test,omitempty"`
}

// The split names.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
	SplitTest       = "test"
)

// Selector selects cases: files matching any of Patterns (globs or paths
// relative to the campaign's Dir; a directory means every *.case.json
// below it), keeping those that carry one of Tags when Tags is set.
type Selector struct {
	Patterns []string `json:"patterns"`
	Tags     []string `json:"tags,omitempty"`
}

// Repetitions are how often each case runs per candidate and profile.
// A campaign of fixed variants runs every split at Promotion; Search is
// kept for a later search mode.
type Repetitions struct {
	Search    int `json:"search,omitempty"`    // default 1
	Promotion int `json:"promotion,omitempty"` // default 1
}

// Variant is a candidate: new contents of some mutable files.
type Variant struct {
	ID    string            `json:"id"`
	Name  string            `json:"name,omitempty"`
	Files map[string]string `json:"files"`
}

// Objectives say what a candidate must satisfy and what is better.
type Objectives struct {
	Constraints []Constraint `json:"constraints,omitempty"`
	Minimize    []Objective  `json:"minimize,omitempty"`
}

// Constraint bounds a metric on one split, for every profile unless it
// names one. Without RelativeTo it bounds the candidate's own value (its
// mean over cases, or with Confidence the interval of that mean); with
// RelativeTo "baseline" it bounds the paired effect against the baseline
// (its estimate, or with Confidence its interval), in the metric's units,
// or as a fraction of the baseline's mean with Relative.
type Constraint struct {
	Metric     string      `json:"metric"`
	Min        *float64    `json:"min,omitempty"`
	Max        *float64    `json:"max,omitempty"`
	Profile    string      `json:"profile,omitempty"`
	Split      string      `json:"split,omitempty"` // default validation
	RelativeTo string      `json:"relativeTo,omitempty"`
	Relative   bool        `json:"relative,omitempty"`
	Confidence *Confidence `json:"confidence,omitempty"`
	// Test is the sequential test of a constraint against the baseline in
	// a sequential campaign: sign-test (default for quality.passRate),
	// betting (default for quality.score) or empirical-bernstein.
	Test string `json:"test,omitempty"`
}

// Objective is a metric to minimize, on one split (default validation),
// averaged over the profiles (or one).
type Objective struct {
	Metric  string `json:"metric"`
	Profile string `json:"profile,omitempty"`
	Split   string `json:"split,omitempty"`
}

// Confidence asks for an interval: its method (default Student t for
// effects and means), level (default 0.95), bootstrap resamples and seed,
// and the fewest independent units accepted (default 2).
type Confidence struct {
	Method     stats.Method `json:"method,omitempty"`
	Level      float64      `json:"level,omitempty"`
	Resamples  int          `json:"resamples,omitempty"`
	Seed       uint64       `json:"seed,omitempty"`
	MinSamples int          `json:"minSamples,omitempty"`
}

// Budget bounds what an experiment may spend; zero fields take the
// defaults (see DefaultBudget). Runs counts agent runs started.
type Budget struct {
	MaxCandidates int          `json:"maxCandidates,omitempty"`
	MaxRuns       int          `json:"maxRuns,omitempty"`
	MaxJudgeCalls int          `json:"maxJudgeCalls,omitempty"`
	MaxTokens     int64        `json:"maxTokens,omitempty"`
	MaxCostUSD    float64      `json:"maxCostUsd,omitempty"`
	MaxWallTime   lux.Duration `json:"maxWallTime,omitempty"`
}

// DefaultBudget is the budget of fields left zero.
var DefaultBudget = Budget{
	MaxCandidates: 5, MaxRuns: 10_000, MaxJudgeCalls: 100_000, MaxTokens: 10_000_000,
	MaxCostUSD: 100, MaxWallTime: lux.Duration(3_600_000_000_000),
}

// positive sets *v to def unless it is above zero: a count, limit or
// duration that is unset (or makes no sense) takes its default.
func positive[T ~int | ~int64 | ~float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// withDefaults returns c with every default applied (a copy: the caller's
// campaign is not changed).
func (c Campaign) withDefaults() Campaign {
	positive(&c.Repetitions.Search, 1)
	positive(&c.Repetitions.Promotion, 1)
	b, d := &c.Budget, DefaultBudget
	positive(&b.MaxCandidates, d.MaxCandidates)
	positive(&b.MaxRuns, d.MaxRuns)
	positive(&b.MaxJudgeCalls, d.MaxJudgeCalls)
	positive(&b.MaxTokens, d.MaxTokens)
	positive(&b.MaxCostUSD, d.MaxCostUSD)
	positive(&b.MaxWallTime, d.MaxWallTime)
	cs := make([]Constraint, len(c.Objectives.Constraints))
	for i, k := range c.Objectives.Constraints {
		if k.Split == "" {
			k.Split = SplitValidation
		}
		cs[i] = k
	}
	c.Objectives.Constraints = cs
	ms := make([]Objective, len(c.Objectives.Minimize))
	for i, m := range c.Objectives.Minimize {
		if m.Split == "" {
			m.Split = SplitValidation
		}
		ms[i] = m
	}
	c.Objectives.Minimize = ms
	c.withSequentialDefaults()
	return c
}

// selectors returns the declared splits in order.
func (s Splits) selectors() []namedSelector {
	var out []namedSelector
	for _, x := range []namedSelector{{SplitTrain, s.Train}, {SplitValidation, s.Validation}, {SplitTest, s.Test}} {
		if x.sel != nil {
			out = append(out, x)
		}
	}
	return out
}

type namedSelector struct {
	name string
	sel  *Selector
}
