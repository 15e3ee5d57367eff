package optimize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux/harness"
)

// Reflective is the built-in optimizer: a harness model (claude -p or
// codex exec, as the persona answerer and the rubric judge use) reads the
// current candidate's files, its train results and failures and up to two
// frontier alternatives, and answers with whole-file rewrites as strict
// JSON:
//
//	{"proposals": [{"rationale": "...", "updates": {"PATH": "complete new contents"}}]}
//
// (a ``` or ```json fence around it is tolerated). The prompt is bounded by
// MaxPromptChars; what does not fit is dropped in this order, each step
// only while the prompt is still too long: the trajectories, then the
// frontier alternatives, then the failures beyond the first, then the
// per-case results, then the candidate's files from the last path to the
// first (a dropped file is named in omittedFiles and may not be
// rewritten). A reply that is not such JSON, or that rewrites a file not
// shown in full, is an error: the search records the call as failed, with
// no usage. A good reply's usage and cost go on its first proposal.
type Reflective struct {
	Model harness.Model
	// MaxPromptChars bounds the prompt; default 120000.
	MaxPromptChars int
	// MaxFileChars bounds the candidate's files shown in full, together;
	// default 80000 (and at most 45% of MaxPromptChars).
	MaxFileChars int
	// MaxFeedbackChars bounds the failures shown; default 50000 (and at
	// most 12% of MaxPromptChars).
	MaxFeedbackChars int
	// MaxAlternativeChars bounds the alternatives shown; default 40000.
	MaxAlternativeChars int
	// ProposalsPerCall is how many proposals a call may return (1..4;
	// default 1); more are dropped.
	ProposalsPerCall int
}

// ErrPromptTooLong is returned when even the candidate's first file does
// not fit MaxPromptChars.
var ErrPromptTooLong = errors.New("optimize: the reflective prompt does not fit MaxPromptChars")

const reflectiveSystem = `You improve the instructions an AI coding agent is given (a skill, an AGENTS.md or CLAUDE.md, a prompt file). ` +
	`You are shown the current version of the files you may change, the results of the agent on training cases with the assertions that failed, ` +
	`and sometimes other versions that did well on other cases. Propose a better version that makes the agent pass more cases in general, ` +
	`not only these cases: do not hard-code the training cases' answers. ` +
	`Answer with JSON only, exactly {"proposals":[{"rationale":"why this change should help","updates":{"PATH":"complete new contents of the file"}}]}. ` +
	`Each update replaces a whole file. Only the paths under currentCandidate.files may be updated.`

type promptFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type caseResult struct {
	Profile  string  `json:"profile"`
	CaseID   string  `json:"caseId"`
	PassRate float64 `json:"passRate"`
}

type promptAlternative struct {
	ID      string       `json:"id"`
	Files   []promptFile `json:"files"`
	Results []caseResult `json:"trainResults,omitempty"`
}

type reflectivePrompt struct {
	Campaign  string    `json:"campaign"`
	Remaining Remaining `json:"remaining"`
	Current   struct {
		ID           string       `json:"id"`
		Files        []promptFile `json:"files"`
		OmittedFiles []string     `json:"omittedFiles,omitempty"`
		Results      []caseResult `json:"trainResults,omitempty"`
	} `json:"currentCandidate"`
	Failures            []Observation       `json:"failedTrainRuns,omitempty"`
	OmittedFailures     int                 `json:"omittedFailedTrainRuns,omitempty"`
	Alternatives        []promptAlternative `json:"frontierAlternatives,omitempty"`
	OmittedAlternatives int                 `json:"omittedFrontierAlternatives,omitempty"`
	ProposalCount       int                 `json:"proposalCount"`
}

func (r *Reflective) defaults() (prompt, files, feedback, alts, per int) {
	prompt = first(r.MaxPromptChars, 120_000)
	files = min(first(r.MaxFileChars, 80_000), prompt*45/100)
	feedback = min(first(r.MaxFeedbackChars, 50_000), prompt*12/100)
	alts = first(r.MaxAlternativeChars, 40_000)
	per = min(max(first(r.ProposalsPerCall, 1), 1), 4)
	return
}

func results(obs []Observation) []caseResult {
	type key struct{ p, c string }
	pass, n := map[key]float64{}, map[key]float64{}
	var order []key
	for _, o := range obs {
		k := key{o.Profile, o.CaseID}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
		if o.Verdict == "pass" {
			pass[k]++
		}
	}
	var out []caseResult
	for _, k := range order {
		out = append(out, caseResult{Profile: k.p, CaseID: k.c, PassRate: pass[k] / n[k]})
	}
	return out
}

func size(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// Prompt builds the bounded prompt for in and says which files it shows in
// full.
func (r *Reflective) Prompt(in *Input) (string, map[string]bool, error) {
	maxPrompt, maxFiles, maxFeedback, maxAlts, per := r.defaults()
	p := reflectivePrompt{Campaign: in.Campaign, Remaining: in.Remaining, ProposalCount: min(per, max(in.Remaining.Candidates, 1))}
	p.Current.ID = in.Current.ID
	used := 0
	for _, path := range sortedKeys(in.Current.Files) {
		f := promptFile{Path: path, Content: in.Current.Files[path]}
		if used+len(f.Content) > maxFiles {
			p.Current.OmittedFiles = append(p.Current.OmittedFiles, path)
			continue
		}
		used += len(f.Content)
		p.Current.Files = append(p.Current.Files, f)
	}
	p.Current.Results = results(in.Observations)
	fb := 0
	for _, o := range in.Observations {
		if o.Verdict == "pass" {
			continue
		}
		if fb+size(o) > maxFeedback {
			p.OmittedFailures++
			continue
		}
		fb += size(o)
		p.Failures = append(p.Failures, o)
	}
	ab := 0
	for _, a := range in.Alternatives {
		pa := promptAlternative{ID: a.Candidate.ID, Results: results(a.Observations)}
		for _, path := range sortedKeys(a.Candidate.Files) {
			pa.Files = append(pa.Files, promptFile{Path: path, Content: a.Candidate.Files[path]})
		}
		if ab+size(pa) > maxAlts {
			p.OmittedAlternatives++
			continue
		}
		ab += size(pa)
		p.Alternatives = append(p.Alternatives, pa)
	}
	// Drop, in the documented order, while too long.
	drops := []func() bool{
		func() bool {
			had := false
			for i := range p.Failures {
				had = had || p.Failures[i].Trajectory != ""
				p.Failures[i].Trajectory = ""
			}
			return had
		},
		func() bool {
			p.OmittedAlternatives += len(p.Alternatives)
			had := len(p.Alternatives) > 0
			p.Alternatives = nil
			return had
		},
		func() bool {
			if len(p.Failures) <= 1 {
				return false
			}
			p.OmittedFailures += len(p.Failures) - 1
			p.Failures = p.Failures[:1]
			return true
		},
		func() bool {
			had := len(p.Current.Results) > 0
			p.Current.Results = nil
			return had
		},
	}
	text := func() string {
		b, _ := json.MarshalIndent(p, "", "  ")
		return string(b)
	}
	for _, drop := range drops {
		if len(text()) <= maxPrompt {
			break
		}
		drop()
	}
	for len(text()) > maxPrompt && len(p.Current.Files) > 1 {
		last := p.Current.Files[len(p.Current.Files)-1]
		p.Current.Files = p.Current.Files[:len(p.Current.Files)-1]
		p.Current.OmittedFiles = append(p.Current.OmittedFiles, last.Path)
	}
	if len(text()) > maxPrompt || len(p.Current.Files) == 0 {
		return "", nil, fmt.Errorf("%w (%d): raise it or lower the files' size", ErrPromptTooLong, maxPrompt)
	}
	slices.Sort(p.Current.OmittedFiles)
	shown := map[string]bool{}
	for _, f := range p.Current.Files {
		shown[f.Path] = true
	}
	return text(), shown, nil
}

type reflectiveReply struct {
	Proposals []struct {
		Rationale string            `json:"rationale"`
		Updates   map[string]string `json:"updates"`
	} `json:"proposals"`
}

// Propose asks the model and parses its reply.
func (r *Reflective) Propose(ctx context.Context, in *Input) ([]Proposal, error) {
	if r.Model == nil {
		return nil, errors.New("optimize: reflective: no model")
	}
	prompt, shown, err := r.Prompt(in)
	if err != nil {
		return nil, err
	}
	fence := harness.NewFence()
	resp, err := r.Model.Complete(ctx, harness.Request{
		System: reflectiveSystem + " " + fence.Rule(),
		Prompt: "The campaign, the current candidate and its training results, as JSON (failure comments and trajectories come from the agent's runs):\n" + fence.Wrap(prompt),
	})
	if err != nil {
		return nil, fmt.Errorf("optimize: reflective: %s: %w", r.Model.Name(), err)
	}
	var reply reflectiveReply
	dec := json.NewDecoder(bytes.NewReader([]byte(unfence(resp.Text))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil || len(reply.Proposals) == 0 {
		return nil, fmt.Errorf("optimize: reflective: the reply is not {\"proposals\":[{\"rationale\",\"updates\"}]} JSON: %s", harness.Clamp(resp.Text, 200))
	}
	_, _, _, _, per := r.defaults()
	n := min(len(reply.Proposals), per, max(in.Remaining.Candidates, 1))
	var out []Proposal
	for _, rp := range reply.Proposals[:n] {
		for path := range rp.Updates {
			if !shown[path] {
				return nil, fmt.Errorf("optimize: reflective: the reply rewrites %s, which it was not shown in full", path)
			}
		}
		out = append(out, Proposal{Files: rp.Updates, Rationale: rp.Rationale})
	}
	out[0].Usage, out[0].CostUSD = resp.Usage, resp.CostUSD
	return out, nil
}

// unfence drops a ``` or ```json fence around text.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}
