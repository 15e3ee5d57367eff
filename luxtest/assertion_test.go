package luxtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/luxtest"
)

// plugin returns the built-in assertion plugin of type typ.
func plugin(t *testing.T, typ string) *lux.AssertionPlugin {
	t.Helper()
	for _, p := range assertion.All() {
		if p.Type == typ {
			return p
		}
	}
	t.Fatalf("no built-in assertion %q", typ)
	return nil
}

func TestAssertionBuiltins(t *testing.T) {
	withReadme := luxtest.NewRun(t, map[string]string{"README.md": "# Usage\n", "docs/a.md": "a"})
	noWorkspace := luxtest.NewRun(t, nil)
	noWorkspace.Workspace = ""
	said := luxtest.NewRun(t, nil,
		lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "a"}},
		lux.Event{Type: lux.EventProgress, Progress: &lux.Progress{ID: "m1", Kind: lux.KindAgentMessage, Message: &lux.Message{Text: "All tests pass."}}},
		lux.Event{Type: lux.EventDone, Done: &lux.Done{}},
	)

	t.Run("file-exists", func(t *testing.T) {
		luxtest.TestAssertion(t, plugin(t, "file-exists"),
			luxtest.AssertionCase{Name: "present", Config: json.RawMessage(`{"path": "README.md"}`), Run: withReadme, Want: luxtest.Pass},
			luxtest.AssertionCase{Name: "missing", Config: json.RawMessage(`{"path": "NOTES.md"}`), Run: withReadme, Want: luxtest.Fail},
			luxtest.AssertionCase{Name: "no workspace", Config: json.RawMessage(`{"path": "README.md"}`), Run: noWorkspace, Want: luxtest.Ungraded},
			luxtest.AssertionCase{Name: "escaping path", Config: json.RawMessage(`{"path": "../x"}`), Want: luxtest.Invalid},
			luxtest.AssertionCase{Name: "no path", Config: nil, Want: luxtest.Invalid},
		)
	})
	t.Run("file-contains", func(t *testing.T) {
		luxtest.TestAssertion(t, plugin(t, "file-contains"),
			luxtest.AssertionCase{Config: json.RawMessage(`{"path": "README.md", "text": "Usage"}`), Run: withReadme, Want: luxtest.Pass},
			luxtest.AssertionCase{Config: json.RawMessage(`{"path": "README.md", "text": "Install"}`), Run: withReadme, Want: luxtest.Fail},
		)
	})
	t.Run("glob-count", func(t *testing.T) {
		luxtest.TestAssertion(t, plugin(t, "glob-count"),
			luxtest.AssertionCase{Config: json.RawMessage(`{"glob": "**/*.md", "min": 2}`), Run: withReadme, Want: luxtest.Pass},
			luxtest.AssertionCase{Config: json.RawMessage(`{"glob": "**/*.md", "min": 3}`), Run: withReadme, Want: luxtest.Fail},
		)
	})
	t.Run("contains", func(t *testing.T) {
		luxtest.TestAssertion(t, plugin(t, "contains"),
			luxtest.AssertionCase{Config: json.RawMessage(`{"text": "tests pass"}`), Run: said, Want: luxtest.Pass},
			luxtest.AssertionCase{Config: json.RawMessage(`{"text": "tests fail"}`), Run: said, Want: luxtest.Fail},
			luxtest.AssertionCase{Config: json.RawMessage(`{"text": "x", "against": "everything"}`), Want: luxtest.Invalid},
		)
	})
	t.Run("run-succeeded", func(t *testing.T) {
		failed := luxtest.NewRun(t, nil)
		failed.Outcome.ExitReason = lux.ExitIdleTimeout
		luxtest.TestAssertion(t, plugin(t, "run-succeeded"),
			luxtest.AssertionCase{Want: luxtest.Pass},
			luxtest.AssertionCase{Run: failed, Want: luxtest.Fail},
		)
	})
	t.Run("predicate", func(t *testing.T) {
		p := assertion.Predicate("has-readme", func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			for _, a := range run.Artifacts {
				if a.Path == "README.md" {
					return assertion.Pass("found", nil), nil
				}
			}
			return assertion.Fail("no README.md", nil), nil
		})
		luxtest.TestAssertion(t, p,
			luxtest.AssertionCase{Run: withReadme, Want: luxtest.Pass},
			luxtest.AssertionCase{Want: luxtest.Fail},
		)
	})
}

func TestNewRun(t *testing.T) {
	run := luxtest.NewRun(t, map[string]string{"b/c.txt": "hello", "a.txt": ""},
		lux.Event{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: "q1"}})
	assert.Equal(t, lux.ExitDone, run.Outcome.ExitReason)
	assert.Nil(t, run.Outcome.Usage.Agent, "no usage reported")
	assert.Len(t, assertion.Interrupts(run.Events), 1)
	assert.Equal(t, 2, run.Outcome.ArtifactCount)
	assert.Equal(t, int64(5), run.Outcome.ArtifactBytes)
	want := []lux.Artifact{
		{Path: "a.txt", Size: 0, SHA256: digest.Bytes(nil)},
		{Path: "b/c.txt", Size: 5, SHA256: digest.Bytes([]byte("hello"))},
	}
	if diff := cmp.Diff(want, run.Artifacts); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
	res, err := plugin(t, "file-contains").Parse(json.RawMessage(`{"path": "b/c.txt", "text": "hello"}`))
	require.NoError(t, err)
	r, err := res.Evaluate(t.Context(), run)
	require.NoError(t, err)
	assert.True(t, r.Passed, r.Comment)
}

// TestAssertionCatchesBrokenAssertions runs the suite against assertion
// plugins that each break one rule.
func TestAssertionCatchesBrokenAssertions(t *testing.T) {
	tests := []struct {
		breaks string
		want   []string
	}{
		{breaks: "", want: nil},
		{breaks: "lax-parse", want: []string{"parse-unknown-field", "parse-invalid", "expect"}},
		{breaks: "validates-after-decoding", want: []string{"parse-unknown-field"}},
		{breaks: "untyped-unknown-field", want: []string{"parse-unknown-field"}},
		{breaks: "no-version", want: []string{"plugin"}},
		{breaks: "unwrapped-errors", want: []string{"parse-unknown-field", "parse-invalid", "parse"}},
		{breaks: "score-above-one", want: []string{"score"}},
		{breaks: "nan-score", want: []string{"score"}},
		{breaks: "error-for-missing", want: []string{"expect"}},
		{breaks: "fail-for-no-workspace", want: []string{"expect"}},
		{breaks: "mutates-run", want: []string{"evaluate"}},
		{breaks: "bad-detail", want: []string{"detail"}},
		{breaks: "negative-usage", want: []string{"usage"}},
		{breaks: "panics", want: []string{"evaluate"}},
	}
	for _, tt := range tests {
		name := tt.breaks
		if name == "" {
			name = "conforming"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			present := luxtest.NewRun(t, map[string]string{"out.txt": "x"})
			noWorkspace := luxtest.NewRun(t, nil)
			noWorkspace.Workspace = ""
			err := luxtest.CheckAssertion(t.Context(), fakeAssertion(tt.breaks),
				luxtest.AssertionCase{Name: "present", Config: json.RawMessage(`{"path": "out.txt"}`), Run: present, Want: luxtest.Pass},
				luxtest.AssertionCase{Name: "missing", Config: json.RawMessage(`{"path": "gone.txt"}`), Run: present, Want: luxtest.Fail},
				luxtest.AssertionCase{Name: "no workspace", Config: json.RawMessage(`{"path": "out.txt"}`), Run: noWorkspace, Want: luxtest.Ungraded},
				luxtest.AssertionCase{Name: "no path", Config: json.RawMessage(`{}`), Want: luxtest.Invalid},
			)
			if err != nil {
				t.Log(err)
			}
			if diff := cmp.Diff(tt.want, checks(err)); diff != "" {
				t.Errorf("checks reporting problems (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// fakeAssertion is a file-exists look-alike that breaks its contract as
// told.
func fakeAssertion(brk string) *lux.AssertionPlugin {
	p := &lux.AssertionPlugin{Type: "fake-exists", Version: "1", Doc: "passes when a file exists"}
	if brk == "no-version" {
		p.Version = ""
	}
	p.Parse = func(raw json.RawMessage) (lux.Check, error) {
		var cfg struct {
			Path string `json:"path"`
		}
		switch brk {
		case "lax-parse":
			_ = json.Unmarshal(raw, &cfg)
		case "unwrapped-errors":
			if err := json.Unmarshal(raw, &cfg); err != nil {
				return nil, err
			}
			var all map[string]any
			_ = json.Unmarshal(raw, &all)
			delete(all, "path")
			if len(all) > 0 {
				return nil, errors.New("fake: unexpected fields")
			}
			if cfg.Path == "" {
				return nil, errors.New("fake: path is required")
			}
		case "validates-after-decoding":
			// A typo hides the missing path.
			if err := lux.DecodeConfig(raw, &cfg); err != nil {
				return nil, err
			}
			if cfg.Path == "" {
				var p lux.Problems
				p.Add("path", "required")
				return nil, p.Err(lux.ErrInvalidConfig)
			}
		case "untyped-unknown-field":
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if err := d.Decode(&cfg); err != nil {
				return nil, fmt.Errorf("%w: %v", lux.ErrInvalidConfig, err)
			}
			if cfg.Path == "" {
				return nil, fmt.Errorf("%w: path: required", lux.ErrInvalidConfig)
			}
		default:
			err := lux.DecodeConfig(raw, &cfg, func() error {
				var p lux.Problems
				if cfg.Path == "" {
					p.Add("path", "required")
				}
				return p.Err(nil)
			})
			if err != nil {
				return nil, err
			}
		}
		return assertion.CheckFunc(func(ctx context.Context, run *lux.Run) (lux.Result, error) {
			if brk == "panics" {
				panic("fake: grader broke")
			}
			if brk == "mutates-run" {
				run.Outcome.ExitReason = lux.ExitError
				defer func() { run.Outcome.ExitReason = lux.ExitDone }()
				run.Events = append(run.Events, lux.Event{Type: lux.EventDone})
			}
			if run.Workspace == "" {
				if brk == "fail-for-no-workspace" {
					return assertion.Fail("no workspace", nil), nil
				}
				return lux.Result{}, errors.New("fake: the run has no workspace")
			}
			found := false
			for _, a := range run.Artifacts {
				found = found || a.Path == cfg.Path
			}
			res := assertion.Pass("found", map[string]any{"path": cfg.Path})
			if !found {
				if brk == "error-for-missing" {
					return lux.Result{}, errors.New("fake: no such file")
				}
				res = assertion.Fail("not found", map[string]any{"path": cfg.Path})
			}
			switch brk {
			case "score-above-one":
				res.Score *= 1.5
			case "nan-score":
				res.Score = math.NaN()
			case "bad-detail":
				res.Detail = map[string]any{"f": func() {}}
			case "negative-usage":
				res.Usage = &lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: -3}}
			}
			return res, nil
		}), nil
	}
	return p
}
