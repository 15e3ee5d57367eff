package report

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// Fixtures: suites written with package record, as the orchestrator
// writes them, with strings an agent or a case author could make hostile.

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// hostile is markup that must show as text and never run.
const hostile = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

// hostileName is an artifact's name and hostileTag a tag that are markup
// with a control character.
const (
	hostileName = "odd <img src=x onerror=window.__pwned=3>\x1b.txt"
	hostileTag  = "<b onmouseover=window.__pwned=4>t</b>\x07"
)

// multiLine is an assertion's comment of several lines, as a command's
// output gives it, with markup and a control character (an escape).
const multiLine = "hello.txt does not contain \"hi\":\n--- FAIL: TestHello (0.00s)\n    hello_test.go:9: got " + hostile + "\n\x1b[31mFAIL"

// fixtureRun is one run to write.
type fixtureRun struct {
	caseID     string
	rep        int
	cluster    string
	tags       []string
	passed     *bool
	exit       lux.ExitReason
	tokens     int64
	durationMs int64
	artifacts  map[string]string
	message    string
	reason     string // the run's reason when it did not end done ("" for one with markup)
	events     int    // extra agent messages, to make long trajectories
	extraTool  bool   // a Bash call after the first message, its output multi-line
	caseHash   string // "" for "case-" + the case id
}

func writeRun(t testing.TB, root, suiteID string, fr fixtureRun, start time.Time) (string, *record.Metadata, *record.Grading) {
	t.Helper()
	dir, err := record.ReserveRunDir(root, fr.caseID, "subprocess", start)
	if err != nil {
		t.Fatal(err)
	}
	exit := fr.exit
	if exit == "" {
		exit = lux.ExitDone
	}
	m := &record.Metadata{
		SchemaVersion: record.SchemaVersion, LuxVersion: "test", RunID: fr.caseID + "/" + filepath.Base(dir), CaseID: fr.caseID,
		SuiteID: suiteID, Repetition: fr.rep, StartedAt: start, EndedAt: start.Add(time.Duration(fr.durationMs) * time.Millisecond),
		ExitReason: exit, Driver: record.DriverInfo{Name: "subprocess", Ready: lux.Ready{AgentID: "echoagent", AgentVersion: "1.0", Model: "m-1"}},
		Answerer:  record.RunAnswerer{Name: "scripted"},
		Usage:     lux.Usage{Agent: &lux.TokenUsage{Input: fr.tokens, Output: 10}, AgentCostUSD: ptr(0.01)},
		ToolCalls: record.ToolOutcomes{Reported: 1, Total: 1, Succeeded: 1},
		Provenance: record.Provenance{
			Source:   &record.Source{CasePath: "cases/" + fr.caseID + ".case.json", Git: &record.GitInfo{Commit: "abc123"}},
			Host:     record.Host{OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
			Runtime:  record.RuntimeInfo{Driver: "subprocess", Commands: []record.CommandInfo{{Name: "echoagent", Path: "/bin/echoagent", Version: "1.0"}}},
			CaseHash: cmpOr(fr.caseHash, "case-"+fr.caseID), AssertionsHash: "a-1", DriverConfigHash: "d-1", EvaluatorConfigHash: "e-1",
		},
	}
	if exit != lux.ExitDone {
		m.Reason = cmpOr(fr.reason, "the agent stopped: "+hostile)
	}
	c := &record.CaseRecord{Case: lux.Case{ID: fr.caseID, Prompt: "Write hello.txt. " + hostile, Tags: fr.tags, Cluster: fr.cluster}}
	g := &record.Grading{SchemaVersion: record.SchemaVersion, Passed: fr.passed}
	score := 0.0
	if fr.passed != nil && *fr.passed {
		score = 1
	}
	if fr.passed != nil {
		g.Score = &score
	}
	g.Assertions = []record.AssertionOutcome{
		{ID: "hello", Type: "file-exists", Name: "hello", Passed: true, Score: 1, Weight: 1},
		{ID: "says-hi", Type: "file-contains", Name: "says-hi", Passed: fr.passed != nil && *fr.passed, Score: score, Weight: 1,
			Comment: multiLine, Detail: map[string]any{"found": hostile}},
	}
	if fr.passed == nil {
		g.Assertions[1].Error = "could not read hello.txt"
		g.Incomplete = &record.Incomplete{ExitReason: exit, Phase: "grading"}
	}
	var arts []lux.Artifact
	for _, p := range slices.Sorted(maps.Keys(fr.artifacts)) {
		body := fr.artifacts[p]
		full := filepath.Join(dir, record.ArtifactsDir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		arts = append(arts, lux.Artifact{Path: p, Size: int64(len(body)), SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(body)))})
	}
	log, err := record.CreateEventLog(filepath.Join(dir, record.EventsFile), record.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	msg := fr.message
	if msg == "" {
		msg = "I will write hello.txt. " + hostile
	}
	events := []lux.Event{
		{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "echoagent", AgentVersion: "1.0"}},
		{Type: lux.EventProgress, Time: at(100), Progress: ptr(lux.NewProgress("p1", lux.KindAgentMessage, &lux.Message{Text: msg}))},
		{Type: lux.EventInterrupt, Time: at(200), Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which greeting? " + hostile}},
		{Type: lux.EventResponded, Time: at(300), Answer: &lux.Answer{Kind: lux.Ask, ID: "q1", Text: "hi " + hostile}},
		{Type: lux.EventProgress, Time: at(400), Progress: ptr(lux.NewProgress("p2", lux.KindToolCall, &lux.ToolCall{Name: "Write", ToolUseID: "t1", Input: map[string]any{"path": "hello.txt", "content": hostile}}))},
		{Type: lux.EventProgress, Time: at(500), Progress: ptr(lux.NewProgress("p3", lux.KindToolResult, &lux.ToolResult{Name: "Write", ToolUseID: "t1", Text: "wrote " + hostile}))},
		{Type: lux.EventProgress, Time: at(600), Progress: ptr(lux.NewProgress("p4", lux.KindUsage, &lux.UsageReport{TokenUsage: lux.TokenUsage{Input: fr.tokens, Output: 10}}))},
	}
	if fr.extraTool {
		extra := []lux.Event{
			{Type: lux.EventProgress, Time: at(150), Progress: ptr(lux.NewProgress("b1", lux.KindToolCall, &lux.ToolCall{Name: "Bash", ToolUseID: "t0", Input: map[string]any{"command": "go test ./..."}}))},
			{Type: lux.EventProgress, Time: at(160), Progress: ptr(lux.NewProgress("b2", lux.KindToolResult, &lux.ToolResult{Name: "Bash", ToolUseID: "t0", IsError: true, Text: multiLine}))},
		}
		events = append(events[:2], append(extra, events[2:]...)...)
	}
	for i := range fr.events {
		events = append(events, lux.Event{Type: lux.EventProgress, Time: at(700 + i), Progress: ptr(lux.NewProgress(fmt.Sprintf("x%d", i), lux.KindAgentMessage, &lux.Message{Text: fmt.Sprintf("step %d", i)}))})
	}
	if exit == lux.ExitDone {
		events = append(events, lux.Event{Type: lux.EventDone, Time: at(int(fr.durationMs)), Done: &lux.Done{Usage: &lux.TokenUsage{Input: fr.tokens, Output: 10}, Turns: 2}})
	} else {
		events = append(events, lux.Event{Type: lux.EventError, Time: at(int(fr.durationMs)), Error: &lux.ErrorEvent{ExitReason: exit, Reason: m.Reason}})
	}
	for _, e := range events {
		if err := log.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	w := record.Writer{}
	for name, v := range map[string]any{record.MetadataFile: m, record.CaseFile: c, record.GradingFile: g, record.ArtifactsFile: arts} {
		if err := w.WriteJSON(filepath.Join(dir, name), v); err != nil {
			t.Fatal(err)
		}
	}
	return dir, m, g
}

// writeSuite writes a completed suite of runs under root and returns its directory.
// Its repetitions are the highest repetition of runs; edit, when given,
// changes the manifest before it is written.
func writeSuite(t testing.TB, root string, start time.Time, runs []fixtureRun, edit ...func(*record.SuiteManifest)) string {
	t.Helper()
	dir, err := record.ReserveSuiteDir(root, start)
	if err != nil {
		t.Fatal(err)
	}
	id := filepath.Base(dir)
	end := start.Add(time.Minute)
	man := &record.SuiteManifest{SchemaVersion: record.SchemaVersion, LuxVersion: "test", SuiteID: id, StartedAt: start, EndedAt: &end,
		Status: record.SuitePassed, Concurrency: 1, Repetitions: 1}
	b := record.NewSummaryBuilder(id)
	for i, fr := range runs {
		runDir, m, g := writeRun(t, root, id, fr, start.Add(time.Duration(i)*time.Second))
		rel, _ := filepath.Rel(dir, runDir)
		it := record.SuiteItem{CaseID: fr.caseID, Repetition: fr.rep, Cluster: fr.cluster, Status: record.ItemCompleted,
			RunDir: filepath.ToSlash(rel), ExitReason: m.ExitReason, Passed: g.Passed, Score: g.Score, RunVerdict: record.RunVerdict(m, g)}
		if it.Failed() {
			man.Status = record.SuiteFailed
		}
		man.Items = append(man.Items, it)
		man.Repetitions = max(man.Repetitions, fr.rep)
		b.Add(i, it, m, g)
	}
	for _, e := range edit {
		e(man)
	}
	w := record.Writer{}
	if err := w.WriteJSON(filepath.Join(dir, record.SuiteFile), man); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteJSON(filepath.Join(dir, record.SuiteSummaryFile), b.Build(man.Status, end)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pair writes a baseline suite A and a change B where B loses cases:
// every case passes in A, and in B the cases listed in failB fail.
func pairSuites(t testing.TB, root string, cases, reps int, failB map[int]bool) (string, string) {
	t.Helper()
	mk := func(side string, fail map[int]bool) []fixtureRun {
		var out []fixtureRun
		for c := range cases {
			for r := 1; r <= reps; r++ {
				id := fmt.Sprintf("case-%02d", c)
				if c == 1 {
					id += " " + hostile // case ids are authored text too
				}
				tags := []string{"docs"}
				if c%2 == 1 {
					tags = []string{"code", "slow", hostileTag}
				}
				arts := map[string]string{"hello.txt": "line 1\nline 2\nhi from " + side + " " + hostile + "\nline 4\n", "data.bin": "\x00\x01" + side}
				if fail[c] {
					arts["notes.md"] = "# notes\n" + hostile + "\n"
					arts[hostileName] = "x"
				}
				out = append(out, fixtureRun{caseID: id, rep: r, cluster: fmt.Sprintf("repo-%d", c%3), tags: tags,
					passed: ptr(!fail[c]), tokens: int64(100 + 10*c), durationMs: int64(1000 + 100*c),
					artifacts: arts, extraTool: fail[c]})
			}
		}
		return out
	}
	a := writeSuite(t, root, t0, mk("A", nil))
	b := writeSuite(t, root, t0.Add(time.Hour), mk("B", failB), func(m *record.SuiteManifest) {
		m.Label, m.GitBranch = "nightly-b", "feature/<b>x</b>" // a branch name may hold markup
	})
	return a, b
}
