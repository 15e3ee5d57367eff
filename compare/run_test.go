package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunMismatchFields(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(r *record.Run)
		want   Field
	}{
		{"case id", func(r *record.Run) { r.Metadata.CaseID = "other" }, FieldCaseID},
		{"case hash", func(r *record.Run) { r.Metadata.Provenance.CaseHash = "case-2"; r.Case.Prompt = "write bye.txt" }, FieldCaseHash},
		{"assertions hash", func(r *record.Run) { r.Metadata.Provenance.AssertionsHash = "asserts-2" }, FieldAssertionsHash},
		{"fixtures hash", func(r *record.Run) { r.Metadata.Provenance.FixturesHash = "fixtures-2" }, FieldFixturesHash},
		{"driver config", func(r *record.Run) { r.Metadata.Provenance.DriverConfigHash = "driver-2" }, FieldDriverConfigHash},
		{"answerer config", func(r *record.Run) { r.Metadata.Provenance.AnswererConfigHash = "answerer-2" }, FieldAnswererConfigHash},
		{"evaluator config", func(r *record.Run) { r.Metadata.Provenance.EvaluatorConfigHash = "evaluator-2" }, FieldEvaluatorConfigHash},
		{"CLI version", func(r *record.Run) { r.Metadata.Provenance.Runtime.Commands[0].Version = "2.0" }, FieldRuntime},
		{"model", func(r *record.Run) { r.Metadata.Provenance.Runtime.Model = "big" }, FieldRuntime},
		{"capabilities", func(r *record.Run) { r.Metadata.Provenance.Runtime.Capabilities = nil }, FieldRuntime},
		{"runtime driver", func(r *record.Run) { r.Metadata.Provenance.Runtime.Driver = "codex" }, FieldRuntime},
		{"environment", func(r *record.Run) { r.Metadata.Provenance.Environment = json.RawMessage(`{"image":"golang:1.27"}`) }, FieldEnvironment},
		{"environment removed", func(r *record.Run) { r.Metadata.Provenance.Environment = nil }, FieldEnvironment},
		{"git commit", func(r *record.Run) { r.Metadata.Provenance.Source.Git.Commit = "def456" }, FieldSource},
		{"dirty without snapshot", func(r *record.Run) { r.Metadata.Provenance.Source.Git.Dirty = true }, FieldSource},
		{"host", func(r *record.Run) { r.Metadata.Provenance.Host.Arch = "arm64" }, FieldHost},
		{"agent version", func(r *record.Run) { r.Metadata.Driver.AgentVersion = "1.1" }, FieldDriver},
		{"answerer", func(r *record.Run) { r.Metadata.Answerer.Name = "persona" }, FieldAnswerer},
		{"experiment", func(r *record.Run) { r.Metadata.Provenance.ExperimentID = "exp-1" }, FieldExperimentID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := run("a", "hello"), run("b", "hello")
			tt.mutate(b)
			c, err := RunRecords(a, b, Options{})
			require.NoError(t, err)
			require.Len(t, c.Mismatches, 1, "%+v", c.Mismatches)
			m := c.Mismatches[0]
			assert.Equal(t, tt.want, m.Field)
			assert.NotEqual(t, m.A, m.B, "both values are named")
			assert.Equal(t, NotComparable, c.Verdict)
			assert.True(t, c.Gate.Failed)
			if _, isHash := m.A.(string); !isHash && tt.want != FieldAnswerer {
				assert.NotEmpty(t, m.Diff, "structured values come with a diff")
			}
		})
	}
}

func TestRunMismatchDiffs(t *testing.T) {
	a, b := run("a", "hello"), run("b", "hello")
	b.Metadata.Provenance.CaseHash = "case-2"
	b.Case.Prompt = "write bye.txt"
	b.Metadata.Provenance.Runtime.Commands[0].Version = "2.0"
	c, err := RunRecords(a, b, Options{})
	require.NoError(t, err)
	require.Len(t, c.Mismatches, 2)
	assert.Contains(t, c.Mismatches[0].Diff, `-   Prompt:  "write hello.txt saying hello",`)
	assert.Contains(t, c.Mismatches[0].Diff, `+   Prompt:  "write bye.txt",`)
	assert.Regexp(t, `-\s+Version:\s+"1.0",`, c.Mismatches[1].Diff)
	assert.Regexp(t, `\+\s+Version:\s+"2.0",`, c.Mismatches[1].Diff)
	assert.NotContains(t, c.Mismatches[1].Diff, "\u00a0", "diffs are normalised to plain spaces")
}

func TestRunIdentityIgnoresWhatRepetitionsChange(t *testing.T) {
	a, b := run("a", "hello"), run("b", "hello")
	m := b.Metadata
	m.RunID, m.SuiteID, m.Repetition = "other", "s2", 3
	m.StartedAt, m.EndedAt = m.StartedAt.Add(3600e9), m.EndedAt.Add(3600e9)
	m.Driver.Detail = map[string]any{"sessionId": "s-2", "mode": "fast"}
	m.Usage = lux.Usage{}
	c, err := RunRecords(a, b, Options{})
	require.NoError(t, err)
	assert.Empty(t, c.Mismatches)
	assert.Equal(t, NoDifference, c.Verdict)
	assert.False(t, c.Gate.Failed)
}

func TestRunVary(t *testing.T) {
	a, b := run("a", "hello"), run("b", "hello")
	b.Metadata.Provenance.FixturesHash = "fixtures-2"
	b.Metadata.Provenance.Source.Git.Commit = "def456"
	b.Grading = report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0))

	c, err := RunRecords(a, b, Options{Vary: []Field{FieldFixturesHash}})
	require.NoError(t, err)
	assert.Equal(t, NotComparable, c.Verdict, "source still differs")
	assert.Equal(t, []string{"source differs"}, c.Reasons)

	c, err = RunRecords(a, b, Options{Vary: []Field{FieldFixturesHash, FieldSource}})
	require.NoError(t, err)
	require.Len(t, c.Mismatches, 2)
	for _, m := range c.Mismatches {
		assert.True(t, m.Varied, m.Field)
	}
	assert.Equal(t, Worse, c.Verdict)
	assert.Equal(t, []string{`case verdict pass → fail`, `assertion "tests" pass → fail`}, c.Reasons)
	assert.True(t, c.Gate.Failed)
}

func TestRunVerdictAndGate(t *testing.T) {
	tests := []struct {
		name     string
		a, b     *record.Grading
		exitB    lux.ExitReason
		verdict  Verdict
		gate     bool
		wantWhy  []string
		statuses map[string]AssertionStatus
	}{
		{
			name: "identical", a: passing(), b: passing(), verdict: NoDifference,
			statuses: map[string]AssertionStatus{"readme": StatusUnchanged, "tests": StatusUnchanged},
		},
		{
			name: "case and assertion regress", a: passing(),
			b:       report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0)),
			verdict: Worse, gate: true,
			wantWhy:  []string{"case verdict pass → fail", `assertion "tests" pass → fail`},
			statuses: map[string]AssertionStatus{"readme": StatusUnchanged, "tests": StatusRegressed},
		},
		{
			name: "pass to ungraded", a: passing(),
			b:       report(nil, nil, outcome("readme", true, 1), record.AssertionOutcome{ID: "tests", Type: "check", Error: "judge timed out"}),
			verdict: Worse, gate: true,
			wantWhy:  []string{"case verdict pass → ungraded", `assertion "tests" pass → ungraded`},
			statuses: map[string]AssertionStatus{"readme": StatusUnchanged, "tests": StatusRegressed},
		},
		{
			name: "no grading in B", a: passing(), b: nil, verdict: Worse, gate: true,
			wantWhy:  []string{"case verdict pass → error", `assertion "readme" pass → ungraded`, `assertion "tests" pass → ungraded`},
			statuses: map[string]AssertionStatus{"readme": StatusRegressed, "tests": StatusRegressed},
		},
		{
			name: "agent failed", a: passing(), b: passing(), exitB: lux.ExitIdleTimeout, verdict: Worse, gate: true,
			wantWhy: []string{"case verdict pass → fail"},
		},
		{
			name:    "fixed",
			a:       report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0)),
			b:       passing(),
			verdict: Better,
			wantWhy: []string{"case verdict fail → pass", `assertion "tests" fail → pass`},
		},
		{
			name:     "score only",
			a:        report(ptr(true), ptr(0.9), outcome("readme", true, 0.9)),
			b:        report(ptr(true), ptr(0.7), outcome("readme", true, 0.7)),
			verdict:  Worse,
			wantWhy:  []string{"case score 0.9 → 0.7"},
			statuses: map[string]AssertionStatus{"readme": StatusScoreDown},
		},
		{
			name:     "added and removed assertions do not gate",
			a:        report(ptr(true), ptr(1.0), outcome("old", true, 1)),
			b:        report(ptr(true), ptr(1.0), outcome("new", false, 0)),
			verdict:  NoDifference,
			statuses: map[string]AssertionStatus{"old": StatusRemoved, "new": StatusAdded},
		},
		{
			name:     "fail to ungraded",
			a:        report(ptr(false), ptr(0.0), outcome("tests", false, 0)),
			b:        report(nil, nil, record.AssertionOutcome{ID: "tests", Error: "boom"}),
			verdict:  NoDifference,
			statuses: map[string]AssertionStatus{"tests": StatusUngraded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := run("a", "hello"), run("b", "hello")
			a.Grading, b.Grading = tt.a, tt.b
			if tt.exitB != "" {
				b.Metadata.ExitReason = tt.exitB
			}
			c, err := RunRecords(a, b, Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.verdict, c.Verdict)
			assert.Equal(t, tt.gate, c.Gate.Failed)
			if tt.wantWhy == nil {
				tt.wantWhy = []string{}
			}
			assert.Equal(t, tt.wantWhy, c.Reasons)
			if tt.gate {
				assert.Equal(t, tt.wantWhy, c.Gate.Reasons)
			}
			for key, want := range tt.statuses {
				found := false
				for _, ad := range c.Grading.Assertions {
					if ad.Key == key {
						found = true
						assert.Equal(t, want, ad.Status, key)
					}
				}
				assert.True(t, found, "assertion %s listed", key)
			}
		})
	}
}

func TestRunDuplicateAssertionKeys(t *testing.T) {
	a, b := run("a", "hello"), run("b", "hello")
	a.Grading = report(ptr(true), ptr(1.0), record.AssertionOutcome{Name: "same", Passed: true, Score: 1}, record.AssertionOutcome{Name: "same", Passed: true, Score: 1})
	b.Grading = report(ptr(false), ptr(0.5), record.AssertionOutcome{Name: "same", Passed: true, Score: 1}, record.AssertionOutcome{Name: "same", Passed: false})
	c, err := RunRecords(a, b, Options{})
	require.NoError(t, err)
	require.Len(t, c.Grading.Assertions, 2)
	assert.Equal(t, "same", c.Grading.Assertions[0].Key)
	assert.Equal(t, "same (#2)", c.Grading.Assertions[1].Key)
	assert.Equal(t, StatusRegressed, c.Grading.Assertions[1].Status)
}

func TestRunUsageUnavailable(t *testing.T) {
	a, b := run("a", "hello"), run("b", "hello")
	b.Metadata.Usage.Agent, b.Metadata.Usage.AgentCostUSD = nil, nil
	c, err := RunRecords(a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, Change[bool]{true, false}, c.Run.AgentUsageAvailable)
	require.NotNil(t, c.Run.AgentTokens.A)
	assert.Equal(t, int64(420), *c.Run.AgentTokens.A)
	assert.Nil(t, c.Run.AgentTokens.B)
	assert.Nil(t, c.Run.AgentCostUSD.B)

	var text bytes.Buffer
	require.NoError(t, c.WriteText(&text))
	assert.Contains(t, text.String(), "agent tokens      420 → unavailable\n")
	assert.Contains(t, text.String(), "agent cost        $0.2500 → unavailable\n")

	js, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"agentTokens":{"a":420,"b":null}`)
	assert.Contains(t, string(js), `"agentUsageAvailable":{"a":true,"b":false}`)

	// Zero reported tokens are a measurement, not unavailable.
	b.Metadata.Usage.Agent = &lux.TokenUsage{}
	c, err = RunRecords(a, b, Options{})
	require.NoError(t, err)
	text.Reset()
	require.NoError(t, c.WriteText(&text))
	assert.Contains(t, text.String(), "agent tokens      420 → 0  ↓ -420\n")
}

func TestRunArtifacts(t *testing.T) {
	got := artifactDelta(
		[]lux.Artifact{{Path: "a", SHA256: "1"}, {Path: "b", SHA256: "2"}, {Path: "c", Size: 3}},
		[]lux.Artifact{{Path: "b", SHA256: "9"}, {Path: "c", Size: 3}, {Path: "d", SHA256: "4"}},
	)
	assert.Equal(t, ArtifactDelta{Added: []string{"d"}, Removed: []string{"a"}, Changed: []string{"b"}, Unchanged: 1, Diffs: []ArtifactDiff{}}, got)
}

func TestRunsFromDisk(t *testing.T) {
	root := t.TempDir()
	a := writeRunDir(t, root, run("", "hello"))
	rb := run("", "hello")
	rb.Metadata.StartedAt = rb.Metadata.StartedAt.Add(1e9)
	b := writeRunDir(t, root, rb)
	c, err := Runs(context.Background(), a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, NoDifference, c.Verdict)
	assert.Equal(t, a, c.A.Dir)
	assert.Equal(t, 2, c.Artifacts.Unchanged)

	other := run("", "goodbye")
	o := writeRunDir(t, root, other)
	c, err = Runs(context.Background(), a, o, Options{})
	require.NoError(t, err, "different cases are not an error")
	assert.Equal(t, NotComparable, c.Verdict)
	assert.Contains(t, c.Reasons[0], `different cases: A (`+a+`) ran "hello", B (`+o+`) ran "goodbye"`)
	assert.True(t, c.Gate.Failed)
}

func TestRunsBadInput(t *testing.T) {
	root := t.TempDir()
	good := writeRunDir(t, root, run("", "hello"))
	suiteDir, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{summary: true})
	empty := t.TempDir()
	file := filepath.Join(root, "file.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))

	corrupt := writeRunDir(t, root, run("", "corrupt"))
	require.NoError(t, os.WriteFile(filepath.Join(corrupt, record.MetadataFile), []byte(`{"caseId": "x", nope}`), 0o600))
	truncated := writeRunDir(t, root, run("", "truncated"))
	require.NoError(t, os.WriteFile(filepath.Join(truncated, record.GradingFile), []byte(`{"casePassed": true, "assertions": [{"id"`), 0o600))
	wrongType := writeRunDir(t, root, run("", "wrongtype"))
	require.NoError(t, os.WriteFile(filepath.Join(wrongType, record.MetadataFile), []byte(`{"caseId": 7}`), 0o600))

	tests := []struct {
		name string
		dir  string
		want []string
		is   error
	}{
		{"missing", filepath.Join(root, "nope"), []string{filepath.Join(root, "nope"), "no such file"}, os.ErrNotExist},
		{"empty directory", empty, []string{empty, "has neither run.json nor suite.json"}, ErrNotRecord},
		{"a file", file, []string{file, "not a directory"}, ErrNotRecord},
		{"a suite", suiteDir, []string{suiteDir, "is a suite directory, not a run directory"}, ErrKindMismatch},
		{"corrupt run.json", corrupt, []string{filepath.Join(corrupt, record.MetadataFile), "corrupt JSON at byte"}, nil},
		{"truncated grading.json", truncated, []string{filepath.Join(truncated, record.GradingFile), "truncated JSON"}, nil},
		{"wrong type", wrongType, []string{filepath.Join(wrongType, record.MetadataFile), "caseId must be string"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][2]string{{good, tt.dir}, {tt.dir, good}} {
				c, err := Runs(context.Background(), order[0], order[1], Options{})
				require.Error(t, err)
				assert.Nil(t, c)
				for _, w := range tt.want {
					assert.Contains(t, err.Error(), w)
				}
				assert.True(t, strings.HasPrefix(err.Error(), "compare: "), err.Error())
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
			}
		})
	}
	_, err := RunRecords(&record.Run{}, nil, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run A has no metadata")
	assert.Contains(t, err.Error(), "run B has no metadata")
}

func TestRunsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Runs(ctx, "x", "y", Options{})
	assert.True(t, errors.Is(err, context.Canceled))
}

func TestRunTextGolden(t *testing.T) {
	tests := []struct {
		name string
		a, b *record.Run
		opts Options
	}{
		{
			name: "run_worse.txt",
			a:    run("runs/hello/a", "hello"),
			b: run("runs/hello/b", "hello", func(r *record.Run) {
				m := r.Metadata
				m.ExitReason, m.Reason = lux.ExitError, "agent exited with status 2"
				m.OperationalFailure = &record.OperationalFailure{Phase: "driver", Reason: "exit status 2"}
				m.EndedAt = m.StartedAt.Add(3250e6)
				m.Usage.Agent, m.Usage.AgentCostUSD = nil, nil
				m.Usage.Judge = lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 10, Output: 5}}
				m.InterruptCounts = record.InterruptCounts{Ask: 2, Approve: 1}
				m.ToolCalls = record.ToolOutcomes{Reported: 5, Total: 5, Succeeded: 4, Unresolved: 1}
				m.Artifacts = record.ArtifactStats{Count: 2, Bytes: 50}
				r.Grading = report(ptr(false), ptr(0.25), outcome("readme", true, 0.5),
					record.AssertionOutcome{ID: "tests", Type: "command", Name: "command run=go test ./...", Error: "go: not found"},
					outcome("style", false, 0))
				r.Grading.Incomplete = &record.Incomplete{ExitReason: lux.ExitError, Phase: "run", Reason: "agent exited with status 2"}
				r.Artifacts = []lux.Artifact{{Path: "hello.txt", Size: 8, SHA256: "cc"}, {Path: "main.go", Size: 42, SHA256: "dd"}}
			}),
		},
		{
			name: "run_not_comparable.txt",
			a:    run("runs/hello/a", "hello"),
			b: run("runs/hello/b", "hello", func(r *record.Run) {
				r.Case.Prompt = "write hello.txt saying hi"
				p := &r.Metadata.Provenance
				p.CaseHash = "0f3c9a1be2d4c5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"
				p.Runtime.Commands[0].Version = "2.0.1"
				p.Environment = json.RawMessage(`{"image":"golang:1.27"}`)
				p.Source.Git.Commit = "def456"
			}),
			opts: Options{Vary: []Field{FieldSource}},
		},
		{
			name: "run_better.txt",
			a: run("runs/hello/a", "hello", func(r *record.Run) {
				r.Grading = report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0))
			}),
			b: run("runs/hello/b", "hello", func(r *record.Run) {
				r.Metadata.EndedAt = r.Metadata.StartedAt.Add(1500e6)
				r.Metadata.Usage.Agent = &lux.TokenUsage{Input: 80, Output: 20, CacheRead: 300}
				r.Metadata.Usage.AgentCostUSD = ptr(0.2)
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := RunRecords(tt.a, tt.b, tt.opts)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, c.WriteText(&buf))
			checkGolden(t, tt.name, buf.String(), "")
		})
	}
}
