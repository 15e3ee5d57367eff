package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/internal/safefs"
	"github.com/luxeval/lux/record"
)

// RunPage is one run: its outcome, its trajectory as a timeline, its
// assertions with their evidence, its artifacts and its provenance.
type RunPage struct {
	Anchor     string // the id of its section on a suite page
	Dir        string
	RunID      string
	CaseID     string
	Repetition int
	Prompt     string
	Verdict    string // record.RunVerdict: pass, fail, error, cancelled, ungraded
	Score      string
	ExitReason string
	Reason     string
	Harness    string // an operational failure: "collection failed: ..."
	StartedAt  string
	Duration   string
	Facts      []Fact // driver, agent, usage, counts
	Timeline   []Entry
	// TimelineNote says what was left out of the timeline (or why it is empty).
	TimelineNote string
	Assertions   []AssertionRow
	GradingNote  string
	// Labels are people's labels of the run (Options.Labels), shown
	// beside the grading; LabelsFrom is the dataset's path and
	// LabelsMethod how they are compared.
	Labels                   []RunLabel
	LabelsFrom, LabelsMethod string
	Artifacts                []ArtifactRow
	ArtifactNote             string
	Provenance               []Fact
	Stderr                   string
}

// Fact is a labelled value.
type Fact struct {
	Label, Value string
}

// Entry is one step of a trajectory.
type Entry struct {
	Offset string // since the run started: "+1.25s"
	Time   string // the event's time, RFC 3339 with milliseconds
	Kind   string // message, reasoning, tool, question, answer, usage, done, error, stage, other
	Label  string // "agent", "tool call Bash", "question", ...
	Text   string // shown
	// Details are collapsed by default (tool inputs and results, payloads).
	Details []Detail
	Error   bool // a failed tool call, an error event
}

// Detail is a collapsed block of text.
type Detail struct {
	Summary, Body string
}

// AssertionRow is one assertion's outcome with its evidence.
type AssertionRow struct {
	ID, Name, Type string
	Status         string // pass, fail, error
	Score          string
	Weight         string
	Comment        string
	Error          string
	Evidence       string // the detail as indented JSON
	// Labels are the verdicts of the run's labels on the assertion.
	Labels []AssertionLabelCell
}

// ArtifactRow is one artifact with a preview of its text.
type ArtifactRow struct {
	Path    string
	Size    string
	Preview string
	Note    string // why there is no preview, or that it is cut
}

// Run reads the run directory dir (events included) into its page.
func Run(dir string, opts Options) (*RunPage, error) {
	o := opts.withDefaults()
	r, err := readVerifiedRun(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	return runPage(r, o, o.MaxEvents), nil
}

// readVerifiedRun reads the run directory dir, events included, and
// checks that its artifacts and events are the ones its run.json
// fingerprints (record.VerifyEvidence): a run changed after the fact is
// refused.
func readVerifiedRun(ctx context.Context, dir string) (*record.Run, error) {
	r, err := record.ReadRun(dir, record.ReadOptions{Events: true})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if _, err := record.VerifyEvidence(ctx, r); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return r, nil
}

// runPage builds the page of r, showing at most maxEvents events (0: all).
func runPage(r *record.Run, o Options, maxEvents int) *RunPage {
	m := r.Metadata
	p := &RunPage{
		Dir: r.Dir, RunID: m.RunID, CaseID: m.CaseID, Repetition: m.Repetition,
		Verdict: cssName(record.RunVerdict(m, r.Grading)), Score: scoreText(r.Grading), ExitReason: string(m.ExitReason),
		Reason: clip(m.Reason, o.MaxText), StartedAt: stamp(m.StartedAt), Duration: durationText(m.Duration()),
		Stderr: clip(m.StderrTail, o.MaxText),
	}
	if r.Case != nil {
		p.Prompt = clip(r.Case.Prompt, o.MaxText)
	}
	if f := m.OperationalFailure; f != nil {
		p.Harness = string(f.Phase) + " failed: " + clip(f.Reason, o.MaxText)
	}
	p.Facts = runFacts(m)
	p.Provenance = provenanceFacts(m, r.Case)
	p.Timeline, p.TimelineNote = timeline(r.Events, m.StartedAt, o, maxEvents)
	p.Assertions, p.GradingNote = assertionRows(r.Grading, o)
	addLabels(p, r, o.Labels, o)
	p.Artifacts, p.ArtifactNote = artifactRows(r, o)
	return p
}

func runFacts(m *record.Metadata) []Fact {
	agent := m.Driver.AgentID
	if m.Driver.AgentVersion != "" {
		agent += " " + m.Driver.AgentVersion
	}
	if m.Driver.Model != "" {
		agent += " (model " + m.Driver.Model + ")"
	}
	facts := []Fact{{"driver", m.Driver.Name}, {"agent", agent}}
	if m.Answerer.Name != "" {
		facts = append(facts, Fact{"answerer", m.Answerer.Name})
	}
	cost := "unavailable"
	if c := m.Usage.AgentCostUSD; c != nil {
		cost = fmt.Sprintf("$%.4f", *c)
	}
	h := m.Usage.Harness()
	tc, ic := m.ToolCalls, m.InterruptCounts
	return append(facts,
		Fact{"agent tokens", tokenText(m.Usage.Agent)},
		Fact{"agent cost", cost},
		Fact{"harness tokens", tokenText(&h)},
		Fact{"phases", fmt.Sprintf("agent %dms, collect %dms, grading %dms", m.Phases.Agent, m.Phases.Collect, m.Phases.Grading)},
		Fact{"tool calls", fmt.Sprintf("%d (%d ok, %d failed, %d unresolved)", tc.Total, tc.Succeeded, tc.Failed, tc.Unresolved)},
		Fact{"interrupts", fmt.Sprintf("ask %d, approve %d, custom %d", ic.Ask, ic.Approve, ic.Custom)},
	)
}

func provenanceFacts(m *record.Metadata, c *record.CaseRecord) []Fact {
	pv := m.Provenance
	var out []Fact
	add := func(label, value string) {
		if value != "" {
			out = append(out, Fact{label, value})
		}
	}
	if s := pv.Source; s != nil {
		add("case path", s.CasePath)
		if g := s.Git; g != nil {
			commit := g.Commit
			if g.Dirty {
				commit += " (dirty)"
			}
			add("git commit", commit)
			add("working tree hash", g.WorkingTreeHash)
		}
	}
	if c != nil && c.Cluster != "" {
		add("cluster", c.Cluster)
	}
	if c != nil && len(c.Tags) > 0 {
		add("tags", strings.Join(c.Tags, ", "))
	}
	add("host", strings.Trim(pv.Host.OS+"/"+pv.Host.Arch+" "+pv.Host.GoVersion, "/ "))
	add("runtime driver", pv.Runtime.Driver)
	for _, cmd := range pv.Runtime.Commands {
		v := cmd.Version
		if v == "" {
			v = "version unknown"
		}
		if cmd.Path == "" {
			v += " (not found)"
		}
		add("command "+cmd.Name, v)
	}
	var caps []string
	for _, c := range pv.Runtime.Capabilities {
		caps = append(caps, string(c))
	}
	add("capabilities", strings.Join(caps, ", "))
	add("model", pv.Runtime.Model)
	if len(pv.Environment) > 0 {
		add("environment", string(pv.Environment))
	}
	add("case hash", pv.CaseHash)
	add("assertions hash", pv.AssertionsHash)
	add("fixtures hash", pv.FixturesHash)
	add("driver config hash", pv.DriverConfigHash)
	add("answerer config hash", pv.AnswererConfigHash)
	add("evaluator config hash", pv.EvaluatorConfigHash)
	add("experiment", pv.ExperimentID)
	add("candidate", pv.CandidateID)
	add("lux version", m.LuxVersion)
	return out
}

// timeline turns the events into entries, tool results folded into their
// calls, showing at most maxEvents events (0: all).
func timeline(events []lux.Event, start time.Time, o Options, maxEvents int) ([]Entry, string) {
	if len(events) == 0 {
		return nil, "no events were recorded"
	}
	shown := events
	note := ""
	if maxEvents > 0 && len(events) > maxEvents {
		shown = events[:maxEvents]
		note = fmt.Sprintf("showing the first %d of %d events; the file is cut to stay small — lux view -serve shows the whole trajectory", maxEvents, len(events))
	}
	results := map[string]*lux.ToolResult{}
	for _, ev := range shown {
		if p := ev.Progress; p != nil && p.ToolResult != nil && p.ToolResult.ToolUseID != "" {
			results[p.ToolResult.ToolUseID] = p.ToolResult
		}
	}
	folded := map[string]bool{}
	out := make([]Entry, 0, len(shown))
	for _, ev := range shown {
		e := Entry{Time: stamp(ev.Time)}
		if !ev.Time.IsZero() && !start.IsZero() {
			e.Offset = "+" + durationText(ev.Time.Sub(start))
		}
		switch ev.Type {
		case lux.EventReady:
			e.Kind, e.Label = "stage", "ready"
			if r := ev.Ready; r != nil {
				e.Text = strings.TrimSpace(r.AgentID + " " + r.AgentVersion)
				if r.Model != "" {
					e.Text += " · model " + r.Model
				}
			}
		case lux.EventProgress:
			if !progressEntry(&e, ev.Progress, results, folded, o) {
				continue
			}
		case lux.EventInterrupt:
			in := ev.Interrupt
			e.Kind, e.Label, e.Text = "question", string(in.Kind)+" "+in.ID, clip(in.Text(), o.MaxText)
			if in.Context != nil {
				e.Details = append(e.Details, Detail{"context", jsonText(in.Context, o.MaxText)})
			}
		case lux.EventResponded:
			a := ev.Answer
			e.Kind, e.Label = "answer", "answer to "+string(a.Kind)+" "+a.ID
			switch a.Kind {
			case lux.Ask:
				e.Text = clip(a.Text, o.MaxText)
			case lux.Approve:
				e.Text = "denied"
				if a.Approved {
					e.Text = "approved"
				}
				if a.Reason != "" {
					e.Text += ": " + clip(a.Reason, o.MaxText)
				}
			default:
				e.Text = jsonText(a.Payload, o.MaxText)
			}
		case lux.EventDone:
			e.Kind, e.Label = "done", "done"
			if d := ev.Done; d != nil {
				var parts []string
				if d.Turns > 0 {
					parts = append(parts, fmt.Sprintf("%d turns", d.Turns))
				}
				if d.Usage != nil {
					parts = append(parts, "tokens "+tokenText(d.Usage))
				}
				if d.CostUSD != nil {
					parts = append(parts, fmt.Sprintf("$%.4f", *d.CostUSD))
				}
				e.Text = strings.Join(parts, " · ")
				if d.Summary != nil {
					e.Details = append(e.Details, Detail{"summary", jsonText(d.Summary, o.MaxText)})
				}
			}
		case lux.EventError:
			e.Kind, e.Label, e.Error = "error", "error", true
			if x := ev.Error; x != nil {
				e.Label = "error (" + string(x.ExitReason) + ")"
				e.Text = clip(x.Reason, o.MaxText)
			}
		case lux.EventLifecycle:
			e.Kind, e.Label = "stage", string(ev.Stage)
		default:
			e.Kind, e.Label = "other", string(ev.Type)
		}
		out = append(out, e)
	}
	return out, note
}

// progressEntry fills e from p; false leaves the event out (a tool result
// already shown with its call).
func progressEntry(e *Entry, p *lux.Progress, results map[string]*lux.ToolResult, folded map[string]bool, o Options) bool {
	switch {
	case p == nil:
		e.Kind, e.Label = "other", "progress"
	case p.Message != nil:
		e.Kind, e.Label, e.Text = "message", "agent", clip(p.Message.Text, o.MaxText)
		if p.Kind == lux.KindReasoning {
			e.Kind, e.Label = "reasoning", "reasoning"
		}
		if p.Message.ParentToolUseID != "" {
			e.Label += " (subagent)"
		}
	case p.ToolCall != nil:
		c := p.ToolCall
		e.Kind, e.Label = "tool", "tool call "+c.Name
		e.Details = append(e.Details, Detail{"input", jsonText(c.Input, o.MaxText)})
		if res := results[c.ToolUseID]; res != nil && c.ToolUseID != "" && !folded[c.ToolUseID] {
			folded[c.ToolUseID] = true
			e.Details = append(e.Details, resultDetail(res, o))
			e.Error = res.IsError
			e.Text = "ok"
			if res.IsError {
				e.Text = "failed"
			}
			if res.DurationMs != nil {
				e.Text += fmt.Sprintf(" in %s", durationText(time.Duration(*res.DurationMs*float64(time.Millisecond))))
			}
		} else {
			e.Text = "no result"
		}
	case p.ToolResult != nil:
		if folded[p.ToolResult.ToolUseID] {
			return false
		}
		e.Kind, e.Label, e.Error = "tool", "tool result "+p.ToolResult.Name, p.ToolResult.IsError
		e.Details = append(e.Details, resultDetail(p.ToolResult, o))
	case p.Usage != nil:
		u := p.Usage.TokenUsage
		e.Kind, e.Label, e.Text = "usage", "usage", tokenText(&u)
		if p.Usage.Label != "" {
			e.Label += " " + p.Usage.Label
		}
	default:
		e.Kind, e.Label = "other", p.Kind
		if len(p.Payload) > 0 {
			e.Details = append(e.Details, Detail{"payload", jsonText(json.RawMessage(p.Payload), o.MaxText)})
		}
	}
	return true
}

func resultDetail(r *lux.ToolResult, o Options) Detail {
	body := r.Text
	if body == "" && r.Content != nil {
		body = jsonText(r.Content, o.MaxText)
	}
	summary := "result"
	if r.IsError {
		summary = "result (error)"
	}
	return Detail{summary, clip(body, o.MaxText)}
}

func assertionRows(g *record.Grading, o Options) ([]AssertionRow, string) {
	if g == nil {
		return nil, "the run was not graded (no grading.json)"
	}
	var note string
	if g.Incomplete != nil {
		note = fmt.Sprintf("incomplete: %s in %s", g.Incomplete.ExitReason, g.Incomplete.Phase)
		if g.Incomplete.Reason != "" {
			note += ": " + clip(g.Incomplete.Reason, o.MaxText)
		}
	}
	rows := make([]AssertionRow, 0, len(g.Assertions))
	for _, a := range g.Assertions {
		row := AssertionRow{
			ID: a.ID, Name: a.Name, Type: a.Type, Score: score(a.Score), Weight: compare.FormatValue("count", a.Weight),
			Comment: clip(a.Comment, o.MaxText), Error: clip(a.Error, o.MaxText), Status: "fail",
		}
		switch {
		case a.Error != "":
			row.Status = "error"
		case a.Passed:
			row.Status = "pass"
		}
		if a.Detail != nil {
			row.Evidence = jsonText(a.Detail, o.MaxText)
		}
		rows = append(rows, row)
	}
	return rows, note
}

// artifactRows lists the artifacts with a preview of those that are text,
// read through safefs so that a hostile path or a link never leads outside
// the run's workspace.
func artifactRows(r *record.Run, o Options) ([]ArtifactRow, string) {
	if len(r.Artifacts) == 0 {
		return nil, "no artifacts were collected"
	}
	root := safefs.Root{Dir: filepath.Join(r.Dir, record.ArtifactsDir), Name: "workspace"}
	var note string
	list := r.Artifacts
	if len(list) > o.MaxArtifacts {
		note = fmt.Sprintf("showing %d of %d artifacts", o.MaxArtifacts, len(list))
		list = list[:o.MaxArtifacts]
	}
	rows := make([]ArtifactRow, 0, len(list))
	for _, a := range list {
		row := ArtifactRow{Path: a.Path, Size: bytesText(a.Size)}
		data, err := readHead(root, a.Path, o.MaxPreview)
		switch {
		case err == nil && !asRecorded(root, a):
			row.Note = "no preview: the file changed since it was recorded (its SHA-256 is not the one in artifacts.json)"
		case err != nil:
			row.Note = "no preview: " + previewProblem(err)
		case !isText(data):
			row.Note = "binary: no preview"
		default:
			row.Preview = string(data)
			if int64(len(data)) < a.Size {
				row.Note = fmt.Sprintf("first %s of %s", bytesText(int64(len(data))), bytesText(a.Size))
			}
		}
		rows = append(rows, row)
	}
	return rows, note
}

// asRecorded reports whether the artifact a, when it was hashed and is
// small enough to preview, still has the content recorded: a page never
// shows a file changed after the run as its evidence.
func asRecorded(root safefs.Root, a lux.Artifact) bool {
	if a.SHA256 == "" || a.Size > maxPreviewSource {
		return true
	}
	data, err := root.ReadFile(a.Path, maxPreviewSource)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) == a.SHA256
}

// maxPreviewSource is the largest artifact a page previews.
const maxPreviewSource = 1 << 20

// readHead reads up to n bytes of the artifact rel, cut back to whole
// UTF-8 characters.
func readHead(root safefs.Root, rel string, n int) ([]byte, error) {
	info, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxPreviewSource {
		return nil, fmt.Errorf("larger than %s", bytesText(maxPreviewSource))
	}
	data, err := root.ReadFile(rel, maxPreviewSource)
	if err != nil {
		return nil, err
	}
	if len(data) > n {
		data = data[:n]
		// Cut back to a character boundary (at most three bytes).
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0 && !utf8.Valid(data); i++ {
			data = data[:len(data)-1]
		}
	}
	return data, nil
}

// previewProblem says why an artifact has no preview; the row already
// names the path, so a refused path gives only what is wrong with it.
func previewProblem(err error) string {
	var pe *safefs.Error
	if errors.As(err, &pe) {
		return pe.Problem
	}
	return err.Error()
}

func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}
