package optimize

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
)

// Optimizer proposes new versions of a candidate's mutable files. The
// search calls Propose once per iteration; an error is recorded in the
// ledger as a failed proposal call (it counts against the budget) and the
// search goes on. Implement it to plug your own optimizer into Search; the
// built-in one is Reflective.
type Optimizer interface {
	Propose(ctx context.Context, in *Input) ([]Proposal, error)
}

// Input is what an optimizer sees: only the train split. Validation and
// test cases are never named in it, so a proposal cannot fit them.
type Input struct {
	// Campaign is the campaign's id; Mutable its subject's mutable globs.
	Campaign string
	Mutable  []string
	// Current is the candidate to improve and Observations its train
	// runs.
	Current      Candidate
	Observations []Observation
	// Alternatives are other members of the train frontier (at most
	// MaxAlternatives), each with its train runs.
	Alternatives []Alternative
	// Remaining is what the search may still spend.
	Remaining Remaining
}

// Candidate is one version of the mutable files.
type Candidate struct {
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	// Files are the mutable files shown in full, by slash-separated path
	// relative to the subject root. Only these may be proposed.
	Files map[string]string `json:"files"`
}

// Observation is one train run of a candidate: one case, profile and
// repetition.
type Observation struct {
	Profile    string `json:"profile"`
	CaseID     string `json:"caseId"`
	Repetition int    `json:"repetition"`
	// Verdict is the run's verdict (record.RunVerdict): "pass", "fail",
	// "error", "cancelled" or "ungraded"; "error" when its record cannot
	// be read.
	Verdict string `json:"verdict"`
	// Failed are the assertions that did not pass, with their comments.
	Failed []FailedAssertion `json:"failed,omitempty"`
	// Error is why the run or the unit failed, if it did.
	Error string `json:"error,omitempty"`
	// Trajectory is the run's agent messages and tool calls, trimmed.
	Trajectory string `json:"trajectory,omitempty"`
}

// FailedAssertion is an assertion that did not pass.
type FailedAssertion struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Comment string `json:"comment,omitempty"`
}

// Alternative is another frontier member and its train runs.
type Alternative struct {
	Candidate    Candidate     `json:"candidate"`
	Observations []Observation `json:"observations"`
}

// Remaining is the search's budget left.
type Remaining struct {
	Candidates    int           `json:"candidates"`
	ProposalCalls int           `json:"proposalCalls"`
	Runs          int           `json:"runs"`
	Tokens        int64         `json:"tokens"`
	CostUSD       float64       `json:"costUsd"`
	WallTime      time.Duration `json:"wallTime"`
}

// Proposal is a new candidate: whole new contents of some of the current
// candidate's mutable files (the others stay as they are), why, and what
// proposing it cost.
type Proposal struct {
	Files     map[string]string `json:"files"`
	Rationale string            `json:"rationale,omitempty"`
	// Usage and CostUSD are the model's spend for the call that produced
	// this proposal (put them on one proposal of a call, not each); a
	// failed call has none.
	Usage   lux.TokenUsage `json:"usage"`
	CostUSD *float64       `json:"costUsd,omitempty"`
}

// ErrRefused marks a proposal the search does not accept.
var ErrRefused = errors.New("optimize: proposal refused")

// Check refuses a proposal that changes nothing, whose contents are not
// UTF-8 text without NUL bytes (as the baseline's must be), names a file outside the
// mutable set, or names a file whose current content was not shown in full
// to the optimizer (in.Current.Files). mutable reports whether a path is
// one of the subject's mutable files.
func Check(in *Input, p Proposal, mutable func(string) bool) error {
	if len(p.Files) == 0 {
		return fmt.Errorf("%w: it names no file", ErrRefused)
	}
	changed := false
	for _, path := range sortedKeys(p.Files) {
		if !mutable(path) {
			return fmt.Errorf("%w: %s is not a mutable file of the subject (subject.mutable: %v)", ErrRefused, path, in.Mutable)
		}
		cur, shown := in.Current.Files[path]
		if !shown {
			return fmt.Errorf("%w: %s was not shown in full to the optimizer; only shown files may be rewritten", ErrRefused, path)
		}
		if !utf8.ValidString(p.Files[path]) || strings.ContainsRune(p.Files[path], 0) {
			return fmt.Errorf("%w: the new %s is not UTF-8 text without NUL bytes", ErrRefused, path)
		}
		if cur != p.Files[path] {
			changed = true
		}
	}
	if !changed {
		return fmt.Errorf("%w: it changes nothing", ErrRefused)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
