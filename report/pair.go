package report

import (
	"fmt"
	"strings"

	"github.com/luxeval/lux/record"
)

// PairPage is two runs of one case side by side — A and B of a
// comparison, or two repetitions of a suite: their outcomes, their
// assertions, their trajectories aligned step by step, and how their
// workspaces differ.
type PairPage struct {
	// Anchor is the id of its section on a comparison page ("" alone).
	Anchor string
	CaseID string
	A, B   PairSide
	// Assertions pairs the assertions by id, A's order first.
	Assertions []PairAssertion
	// Steps are the two trajectories aligned (see alignSteps); Diverged
	// is the number of the first step where they differ (0: none).
	Steps     []PairStep
	Diverged  int
	StepsNote string
	Files     []FileDiff
	FilesNote string
}

// PairSide is one run of a pair.
type PairSide struct {
	Name       string // "A", "B", "repetition 2"
	Dir, Href  string
	RunID      string
	Verdict    string // record.RunVerdict: pass, fail, error, cancelled, ungraded
	Score      string
	ExitReason string
	Reason     string
	Duration   string
	Tokens     string
}

// PairAssertion is one assertion on both sides (nil: absent on a side).
type PairAssertion struct {
	ID      string
	A, B    *AssertionRow
	Changed bool // the status differs
}

// PairStep is one row of the aligned trajectories: a step on both sides
// (the same kind of event, and the same tool for a tool call) or on one.
type PairStep struct {
	N    int
	A, B *Entry
	// Differs is true when the step is on one side only, or its text,
	// input or result differs.
	Differs bool
}

// Pair reads the run directories a and b (events included) into their
// paired view.
func Pair(a, b string, opts Options) (*PairPage, error) {
	o := opts.withDefaults()
	ra, err := record.ReadRun(a, record.ReadOptions{Events: true})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	rb, err := record.ReadRun(b, record.ReadOptions{Events: true})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return pairPage(ra, rb, "", "", o, o.MaxEvents, nil), nil
}

// pairPage builds the view of a (named nameA) against b; empty names are
// "A" and "B" with their repetitions, or the repetitions alone when both
// runs are of one suite. It
// shows at most maxEvents events a side (0: all).
func pairPage(a, b *record.Run, nameA, nameB string, o Options, maxEvents int, ln links) *PairPage {
	ma, mb := a.Metadata, b.Metadata
	if nameA == "" || nameB == "" {
		nameA, nameB = fmt.Sprintf("A (repetition %d)", ma.Repetition), fmt.Sprintf("B (repetition %d)", mb.Repetition)
		if ma.SuiteID != "" && ma.SuiteID == mb.SuiteID {
			nameA, nameB = fmt.Sprintf("repetition %d", ma.Repetition), fmt.Sprintf("repetition %d", mb.Repetition)
		}
	}
	p := &PairPage{CaseID: ma.CaseID, A: pairSide(nameA, a, o, ln), B: pairSide(nameB, b, o, ln)}
	if mb.CaseID != ma.CaseID {
		p.CaseID = ma.CaseID + " / " + mb.CaseID
	}
	rowsA, _ := assertionRows(a.Grading, o)
	rowsB, _ := assertionRows(b.Grading, o)
	p.Assertions = pairAssertions(rowsA, rowsB)
	ta, noteA := timeline(a.Events, ma.StartedAt, o, maxEvents)
	tb, noteB := timeline(b.Events, mb.StartedAt, o, maxEvents)
	p.Steps = alignSteps(steps(ta), steps(tb))
	for _, s := range p.Steps {
		if s.Differs {
			p.Diverged = s.N
			break
		}
	}
	var notes []string
	for _, n := range []struct{ side, note string }{{nameA, noteA}, {nameB, noteB}} {
		if n.note != "" {
			notes = append(notes, n.side+": "+n.note)
		}
	}
	p.StepsNote = strings.Join(notes, "; ")
	p.Files, p.FilesNote = workspaceDiff(a, b, o)
	return p
}

func pairSide(name string, r *record.Run, o Options, ln links) PairSide {
	m := r.Metadata
	s := PairSide{Name: name, Dir: r.Dir, RunID: m.RunID, Verdict: cssName(record.RunVerdict(m, r.Grading)), Score: scoreText(r.Grading),
		ExitReason: string(m.ExitReason), Reason: clip(m.Reason, o.MaxText), Duration: durationText(m.Duration()),
		Tokens: tokenText(m.Usage.Agent)}
	if ln != nil {
		s.Href = ln.run(r.Dir)
	}
	return s
}

func pairAssertions(a, b []AssertionRow) []PairAssertion {
	key := func(r AssertionRow) string {
		if r.ID != "" {
			return r.ID
		}
		return r.Name
	}
	var out []PairAssertion
	at := map[string]int{}
	for i := range a {
		at[key(a[i])] = len(out)
		out = append(out, PairAssertion{ID: key(a[i]), A: &a[i]})
	}
	for i := range b {
		if j, ok := at[key(b[i])]; ok && out[j].B == nil {
			out[j].B = &b[i]
			continue
		}
		out = append(out, PairAssertion{ID: key(b[i]), B: &b[i]})
	}
	for i := range out {
		pa := &out[i]
		pa.Changed = pa.A == nil || pa.B == nil || pa.A.Status != pa.B.Status
	}
	return out
}

// steps keeps the entries a person compares: usage reports and the
// harness's lifecycle stages are left out.
func steps(entries []Entry) []Entry {
	out := entries[:0:0]
	for _, e := range entries {
		if e.Kind == "usage" || (e.Kind == "stage" && e.Label != "ready") {
			continue
		}
		out = append(out, e)
	}
	return out
}

// maxAlignCells bounds the LCS table of an alignment; longer trajectories
// are aligned by position.
const maxAlignCells = 4 << 20

// alignSteps aligns two trajectories by a longest common subsequence of
// their steps' kinds (event kind, and tool name for a tool call), so that
// a step inserted on one side does not shift every later one: steps in
// the subsequence share a row, the others get a row of their own.
func alignSteps(a, b []Entry) []PairStep {
	var out []PairStep
	add := func(x, y *Entry) {
		s := PairStep{N: len(out) + 1, A: x, B: y}
		s.Differs = x == nil || y == nil || x.compareText() != y.compareText()
		out = append(out, s)
	}
	if len(a)*len(b) > maxAlignCells {
		for i := range max(len(a), len(b)) {
			var x, y *Entry
			if i < len(a) {
				x = &a[i]
			}
			if i < len(b) {
				y = &b[i]
			}
			if x != nil && y != nil && x.key() != y.key() {
				add(x, nil)
				add(nil, y)
				continue
			}
			add(x, y)
		}
		return out
	}
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].key() == b[j].key() {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].key() == b[j].key():
			add(&a[i], &b[j])
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			add(&a[i], nil)
			i++
		default:
			add(nil, &b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		add(&a[i], nil)
	}
	for ; j < len(b); j++ {
		add(nil, &b[j])
	}
	return out
}

// key is what alignment matches on: the event's kind, and for a tool call
// its tool.
func (e *Entry) key() string {
	if e.Kind == "tool" {
		return e.Label
	}
	return e.Kind
}

// compareText is what makes two aligned steps the same: their label,
// text and details (a tool call's timing left out).
func (e *Entry) compareText() string {
	var b strings.Builder
	b.WriteString(e.Label)
	b.WriteByte(0)
	if e.Kind != "tool" {
		b.WriteString(e.Text)
	} else if e.Error {
		b.WriteString("failed")
	}
	for _, d := range e.Details {
		b.WriteByte(0)
		b.WriteString(d.Summary)
		b.WriteByte(0)
		b.WriteString(d.Body)
	}
	return b.String()
}
