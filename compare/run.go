package compare

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// RunComparison compares run B with run A (B is the change, A the
// baseline). Its JSON form is documented in the package documentation.
type RunComparison struct {
	A RunInfo `json:"a"`
	B RunInfo `json:"b"`
	// Verdict is better, worse, no detectable difference or not
	// comparable; Reasons say why, one line each.
	Verdict Verdict  `json:"verdict"`
	Reasons []string `json:"reasons"`
	Gate    Gate     `json:"gate"`
	// Mismatches are the identity fields that differ, varied ones included
	// (marked). Any mismatch that is not varied makes the runs not comparable.
	Mismatches []Mismatch    `json:"mismatches"`
	Run        RunDelta      `json:"run"`
	Grading    GradingDelta  `json:"grading"`
	Artifacts  ArtifactDelta `json:"artifacts"`
}

// RunInfo says which run a side is.
type RunInfo struct {
	Dir        string    `json:"dir,omitempty"`
	RunID      string    `json:"runId,omitempty"`
	CaseID     string    `json:"caseId"`
	SuiteID    string    `json:"suiteId,omitempty"`
	Repetition int       `json:"repetition,omitempty"`
	Driver     string    `json:"driver"`
	StartedAt  time.Time `json:"startedAt"`
}

// RunDelta is how the two runs went, side by side.
type RunDelta struct {
	ExitReason         Change[lux.ExitReason]             `json:"exitReason"`
	Reason             Change[string]                     `json:"reason"` // why, when not done
	OperationalFailure Change[*record.OperationalFailure] `json:"operationalFailure"`
	DurationMs         Change[int64]                      `json:"durationMs"`
	Interrupts         Change[record.InterruptCounts]     `json:"interrupts"`
	ToolCalls          Change[record.ToolOutcomes]        `json:"toolCalls"`
	Artifacts          Change[record.ArtifactStats]       `json:"artifacts"`
	// AgentUsageAvailable is false on a side whose agent reported no usage
	// at all; its AgentTokens and AgentCostUSD are then null, which is
	// "unavailable", never zero.
	AgentUsageAvailable Change[bool]     `json:"agentUsageAvailable"`
	AgentTokens         Change[*int64]   `json:"agentTokens"`
	AgentCostUSD        Change[*float64] `json:"agentCostUsd"`
	// HarnessTokens is what the harness spent: AnswererTokens plus JudgeTokens.
	HarnessTokens  Change[int64] `json:"harnessTokens"`
	AnswererTokens Change[int64] `json:"answererTokens"`
	JudgeTokens    Change[int64] `json:"judgeTokens"`
	// HarnessCostUSD is the reported cost of the harness's model calls:
	// AnswererCostUSD plus JudgeCostUSD. Calls whose cost was not reported
	// are counted in HarnessUnpricedCalls, and the costs are then lower
	// bounds.
	HarnessCostUSD       Change[float64]   `json:"harnessCostUsd"`
	AnswererCostUSD      Change[float64]   `json:"answererCostUsd"`
	JudgeCostUSD         Change[float64]   `json:"judgeCostUsd"`
	HarnessUnpricedCalls Change[int]       `json:"harnessUnpricedCalls"`
	Usage                Change[lux.Usage] `json:"usage"`
}

// ArtifactDelta compares the artifacts the two runs left, by path and
// SHA-256, as artifacts.json records them.
type ArtifactDelta struct {
	Added     []string `json:"added"`
	Removed   []string `json:"removed"`
	Changed   []string `json:"changed"`
	Unchanged int      `json:"unchanged"`
	// Diffs show how the first ten changed artifacts changed, when both
	// runs were read from disk.
	Diffs []ArtifactDiff `json:"diffs"`
}

// Runs compares the run directories a and b. Errors name the directory
// and the problem: one that is not a run directory (a suite directory
// included), a truncated or corrupt JSON file. Two runs of different cases
// are not an error: they compare as not comparable.
func Runs(ctx context.Context, a, b string, opts Options) (*RunComparison, error) {
	s, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	ra, err := readRun(ctx, a)
	if err != nil {
		return nil, err
	}
	rb, err := readRun(ctx, b)
	if err != nil {
		return nil, err
	}
	return compareRuns(ra, rb, s), nil
}

// RunRecords compares two runs already read (record.ReadRun, or the
// orchestrator's results). Case and Artifacts may be nil; Metadata must
// not be. A case score, assertion score or agent cost that is NaN or
// infinite is an [ErrCorrupt] error.
func RunRecords(a, b *record.Run, opts Options) (*RunComparison, error) {
	s, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	var errs []error
	for i, r := range []*record.Run{a, b} {
		if r == nil || r.Metadata == nil {
			errs = append(errs, fmt.Errorf("compare: run %s has no metadata (run.json)", "AB"[i:i+1]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := errors.Join(checkRunFinite(a, "A"), checkRunFinite(b, "B")); err != nil {
		return nil, err
	}
	return compareRuns(a, b, s), nil
}

// checkRunFinite reports, as ErrCorrupt, the scores and the cost of run r
// that are NaN or infinite (JSON cannot hold one; a record built in memory
// can).
func checkRunFinite(r *record.Run, name string) error {
	var bad []string
	if g := r.Grading; g != nil {
		if g.Score != nil && !finite(*g.Score) {
			bad = append(bad, fmt.Sprintf("case score is %v", *g.Score))
		}
		for _, o := range g.Assertions {
			if !finite(o.Score) {
				k := o.ID
				if k == "" {
					k = o.Name
				}
				bad = append(bad, fmt.Sprintf("assertion %q score is %v", k, o.Score))
			}
		}
	}
	if c := r.Metadata.Usage.AgentCostUSD; c != nil && !finite(*c) {
		bad = append(bad, fmt.Sprintf("agent cost is %v", *c))
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: run %s %s: %s", ErrCorrupt, name, where(r.Dir), strings.Join(bad, "; "))
}

func readRun(ctx context.Context, dir string) (*record.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	kind, err := DirKind(dir)
	if err != nil {
		return nil, err
	}
	if kind != KindRun {
		return nil, fmt.Errorf("%w: %s is a suite directory, not a run directory; compare it with another suite (compare.Suites)", ErrKindMismatch, dir)
	}
	r, err := record.ReadRun(dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	// Its artifacts and events are the ones run.json fingerprints.
	if _, err := record.VerifyEvidence(ctx, r); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	return r, nil
}

func runInfo(r *record.Run) RunInfo {
	m := r.Metadata
	return RunInfo{
		Dir: r.Dir, RunID: m.RunID, CaseID: m.CaseID, SuiteID: m.SuiteID, Repetition: m.Repetition,
		Driver: m.Driver.Name, StartedAt: m.StartedAt,
	}
}

func compareRuns(a, b *record.Run, s settings) *RunComparison {
	c := &RunComparison{A: runInfo(a), B: runInfo(b), Reasons: []string{}, Gate: Gate{Reasons: []string{}, Checks: []GateCheck{}}, Mismatches: []Mismatch{}}
	var notComparable []string
	if a.Metadata.CaseID != b.Metadata.CaseID {
		c.Mismatches = append(c.Mismatches, Mismatch{Field: FieldCaseID, A: a.Metadata.CaseID, B: b.Metadata.CaseID})
		notComparable = append(notComparable, fmt.Sprintf("different cases: A %s ran %q, B %s ran %q",
			where(a.Dir), a.Metadata.CaseID, where(b.Dir), b.Metadata.CaseID))
	}
	ms := identityMismatches(a.Metadata, b.Metadata, a.Case, b.Case)
	markVaried(ms, s.vary)
	c.Mismatches = append(c.Mismatches, ms...)
	for _, m := range ms {
		if !m.Varied {
			notComparable = append(notComparable, string(m.Field)+" differs")
		}
	}
	c.Run = runDelta(a.Metadata, b.Metadata)
	c.Grading = gradingDelta(a.Grading, b.Grading, a.Metadata, b.Metadata)
	c.Artifacts = artifactDelta(a.Artifacts, b.Artifacts)
	c.Artifacts.Diffs = artifactDiffs(a.Dir, b.Dir, a.Artifacts, b.Artifacts, c.Artifacts.Changed)

	regressions, improvements := c.Grading.flips()
	id := GateCheck{Rule: GateIdentity, Test: "identity hashes of the two runs", Failed: len(notComparable) > 0,
		Detail: "A and B measure the same thing"}
	if id.Failed {
		id.Detail = strings.Join(notComparable, "; ")
		if flags := varyFlags(c.Mismatches); flags != "" {
			id.Detail += "; if B changes it on purpose, accept it with " + flags
		}
	} else if varied := variedFields(c.Mismatches); varied != "" {
		id.Detail += " (varied on purpose: " + varied + ")"
	}
	c.Gate.Checks = append(c.Gate.Checks, id)
	for _, r := range notComparable {
		c.Gate.fail("not comparable: " + r)
	}
	gr := GateCheck{Rule: GateGrading, Test: "pass or fail of the case verdict and of each assertion, one run a side", Failed: len(regressions) > 0,
		Detail: "neither the case verdict nor any assertion went from pass to fail or to no verdict"}
	if gr.Failed {
		gr.Detail = strings.Join(regressions, "; ")
	}
	c.Gate.Checks = append(c.Gate.Checks, gr)
	switch {
	case len(notComparable) > 0:
		c.Verdict, c.Reasons = NotComparable, notComparable
	case len(regressions) > 0:
		c.Verdict, c.Reasons = Worse, regressions
	case len(improvements) > 0:
		c.Verdict, c.Reasons = Better, improvements
	default:
		c.Verdict = NoDifference
		if sa, sb := c.Grading.Score.A, c.Grading.Score.B; sa != nil && sb != nil && *sa != *sb {
			c.Verdict = Better
			if *sb < *sa {
				c.Verdict = Worse
			}
			c.Reasons = []string{fmt.Sprintf("case score %s → %s", fmtScore(sa), fmtScore(sb))}
		}
	}
	for _, r := range regressions {
		c.Gate.fail(r)
	}
	return c
}

// variedFields names the varied mismatches: "source, runtime".
func variedFields(ms []Mismatch) string {
	var names []string
	for _, m := range ms {
		if m.Varied && !slices.Contains(names, string(m.Field)) {
			names = append(names, string(m.Field))
		}
	}
	return strings.Join(names, ", ")
}

// where is " (dir)" for a run read from disk.
func where(dir string) string {
	if dir == "" {
		return "(in memory)"
	}
	return "(" + dir + ")"
}

func runDelta(a, b *record.Metadata) RunDelta {
	d := RunDelta{
		ExitReason:           Change[lux.ExitReason]{a.ExitReason, b.ExitReason},
		Reason:               Change[string]{a.Reason, b.Reason},
		OperationalFailure:   Change[*record.OperationalFailure]{a.OperationalFailure, b.OperationalFailure},
		DurationMs:           Change[int64]{a.Duration().Milliseconds(), b.Duration().Milliseconds()},
		Interrupts:           Change[record.InterruptCounts]{a.InterruptCounts, b.InterruptCounts},
		ToolCalls:            Change[record.ToolOutcomes]{a.ToolCalls, b.ToolCalls},
		Artifacts:            Change[record.ArtifactStats]{a.Artifacts, b.Artifacts},
		AgentUsageAvailable:  Change[bool]{a.Usage.AgentAvailable(), b.Usage.AgentAvailable()},
		AgentTokens:          Change[*int64]{agentTokens(a.Usage), agentTokens(b.Usage)},
		AgentCostUSD:         Change[*float64]{a.Usage.AgentCostUSD, b.Usage.AgentCostUSD},
		HarnessTokens:        Change[int64]{a.Usage.Harness().Total(), b.Usage.Harness().Total()},
		AnswererTokens:       Change[int64]{a.Usage.Answerer.Total(), b.Usage.Answerer.Total()},
		JudgeTokens:          Change[int64]{a.Usage.Judge.Total(), b.Usage.Judge.Total()},
		HarnessCostUSD:       Change[float64]{a.Usage.HarnessCalls().CostUSD, b.Usage.HarnessCalls().CostUSD},
		AnswererCostUSD:      Change[float64]{a.Usage.Answerer.CostUSD, b.Usage.Answerer.CostUSD},
		JudgeCostUSD:         Change[float64]{a.Usage.Judge.CostUSD, b.Usage.Judge.CostUSD},
		HarnessUnpricedCalls: Change[int]{a.Usage.HarnessCalls().UnpricedCalls, b.Usage.HarnessCalls().UnpricedCalls},
		Usage:                Change[lux.Usage]{a.Usage, b.Usage},
	}
	return d
}

func agentTokens(u lux.Usage) *int64 {
	if u.Agent == nil {
		return nil
	}
	t := u.Agent.Total()
	return &t
}

func artifactDelta(a, b []lux.Artifact) ArtifactDelta {
	d := ArtifactDelta{Added: []string{}, Removed: []string{}, Changed: []string{}, Diffs: []ArtifactDiff{}}
	ha := make(map[string]string, len(a))
	for _, x := range a {
		ha[x.Path] = artifactKey(x)
	}
	seen := make(map[string]bool, len(b))
	for _, x := range b {
		seen[x.Path] = true
		old, ok := ha[x.Path]
		switch {
		case !ok:
			d.Added = append(d.Added, x.Path)
		case old != artifactKey(x):
			d.Changed = append(d.Changed, x.Path)
		default:
			d.Unchanged++
		}
	}
	for _, x := range a {
		if !seen[x.Path] {
			d.Removed = append(d.Removed, x.Path)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.Sort(d.Changed)
	d.Removed = slices.Compact(d.Removed)
	return d
}

// artifactKey identifies an artifact's content: its hash, or its size when
// no hash was recorded.
func artifactKey(x lux.Artifact) string {
	if x.SHA256 != "" {
		return x.SHA256
	}
	return fmt.Sprintf("size:%d", x.Size)
}
