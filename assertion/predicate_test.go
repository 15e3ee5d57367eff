package assertion_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

// readBeforeEdit passes when every edited file was read first.
func readBeforeEdit(_ context.Context, run *lux.Run) (lux.Result, error) {
	read := map[string]bool{}
	for _, c := range assertion.ToolCalls(run.Events, assertion.AnyAgent) {
		in, _ := c.Input.(map[string]any)
		path, _ := in["file_path"].(string)
		switch c.Name {
		case "Read":
			read[path] = true
		case "Edit":
			if !read[path] {
				return assertion.Fail(fmt.Sprintf("edited %s without reading it", path), map[string]any{"path": path}), nil
			}
		}
	}
	return assertion.Pass("every edited file was read first", nil), nil
}

func TestPredicate(t *testing.T) {
	p := assertion.Predicate("read-before-edit", readBeforeEdit)
	reg := lux.NewRegistry()
	if err := reg.RegisterAssertion(p); err != nil {
		t.Fatal(err)
	}
	// Referenced from a JSON case by its name.
	var spec lux.AssertionSpec
	if err := json.Unmarshal([]byte(`{"type":"read-before-edit","weight":2}`), &spec); err != nil {
		t.Fatal(err)
	}
	got, err := reg.Assertion(spec.Type)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := lux.ConfigJSON(spec.Config)
	check, err := got.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) lux.Event {
		return toolCall("Read", "r-"+path, "", map[string]any{"file_path": path})
	}
	edit := func(path string) lux.Event {
		return toolCall("Edit", "e-"+path, "", map[string]any{"file_path": path})
	}
	tests := []struct {
		name    string
		events  []lux.Event
		pass    bool
		comment string
	}{
		{"read then edit", []lux.Event{read("a.go"), edit("a.go")}, true, "every edited file was read first"},
		{"edit unread", []lux.Event{read("a.go"), edit("b.go")}, false, "edited b.go without reading it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := check.Evaluate(context.Background(), &lux.Run{Events: tt.events})
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.pass || res.Comment != tt.comment {
				t.Errorf("result = %+v, want passed %v comment %q", res, tt.pass, tt.comment)
			}
		})
	}
}

func TestPredicateRefusesConfig(t *testing.T) {
	p := assertion.Predicate("p", func(context.Context, *lux.Run) (lux.Result, error) { return assertion.Pass("", nil), nil })
	_, err := p.Parse(json.RawMessage(`{"path":"x"}`))
	if !errors.Is(err, lux.ErrInvalidConfig) || err.Error() != "lux: invalid config: path: unknown field (this config takes no fields)" {
		t.Errorf("Parse = %v", err)
	}
}

func TestPredicateBadVerdicts(t *testing.T) {
	tests := []struct {
		name string
		fn   assertion.PredicateFunc
		want string
	}{
		{"error", func(context.Context, *lux.Run) (lux.Result, error) { return lux.Result{}, errors.New("no evidence") },
			"assertion: predicate p: no evidence"},
		{"score above 1", func(context.Context, *lux.Run) (lux.Result, error) { return lux.Result{Passed: true, Score: 2}, nil },
			"assertion: predicate p: score 2 is outside [0,1]"},
		{"negative score", func(context.Context, *lux.Run) (lux.Result, error) { return lux.Result{Score: -0.5}, nil },
			"assertion: predicate p: score -0.5 is outside [0,1]"},
		{"panic", func(context.Context, *lux.Run) (lux.Result, error) { panic("boom") },
			"assertion: predicate p panicked: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check, err := assertion.Predicate("p", tt.fn).Parse(nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = check.Evaluate(context.Background(), &lux.Run{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("Evaluate error = %v, want %q", err, tt.want)
			}
		})
	}
	check, _ := assertion.Predicate("p", readBeforeEdit).Parse(nil)
	if _, err := check.Evaluate(context.Background(), nil); err == nil {
		t.Error("Evaluate(nil run) succeeded")
	}
}

type budget struct {
	MaxEdits int    `json:"maxEdits"`
	Tool     string `json:"tool,omitempty"`
}

func (b *budget) Validate() error {
	var p lux.Problems
	if b.MaxEdits <= 0 {
		p.Addf("maxEdits", "must be above 0, got %d", b.MaxEdits)
	}
	if b.Tool == "" {
		b.Tool = "Edit"
	}
	return p.Err(nil)
}

func TestPredicateWith(t *testing.T) {
	p := assertion.PredicateWith("edit-budget", func(_ context.Context, run *lux.Run, cfg budget) (lux.Result, error) {
		n := 0
		for _, c := range assertion.ToolCalls(run.Events, assertion.AnyAgent) {
			if c.Name == cfg.Tool {
				n++
			}
		}
		if n <= cfg.MaxEdits {
			return assertion.Pass(fmt.Sprintf("%d edits", n), nil), nil
		}
		return assertion.Fail(fmt.Sprintf("%d edits > %d", n, cfg.MaxEdits), nil), nil
	})
	run := &lux.Run{Events: []lux.Event{toolCall("Edit", "1", "", nil), toolCall("Edit", "2", "", nil), toolCall("Write", "3", "", nil)}}
	for _, tt := range []struct {
		cfg, comment string
		pass         bool
	}{
		{`{"maxEdits":2}`, "2 edits", true},
		{`{"maxEdits":1}`, "2 edits > 1", false},
		{`{"maxEdits":1,"tool":"Write"}`, "1 edits", true},
	} {
		check, err := p.Parse(json.RawMessage(tt.cfg))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.cfg, err)
		}
		res, err := check.Evaluate(context.Background(), run)
		if err != nil || res.Passed != tt.pass || res.Comment != tt.comment {
			t.Errorf("%s: %+v, %v", tt.cfg, res, err)
		}
	}
	for cfg, want := range map[string]string{
		`{"maxEdits":0}`:   "lux: invalid config: maxEdits: must be above 0, got 0",
		`{"maxEdit":1}`:    "lux: invalid config:\n  - maxEdit: unknown field (did you mean \"maxEdits\"?)\n  - maxEdits: must be above 0, got 0",
		`{"maxEdits":"1"}`: "lux: invalid config: maxEdits: must be a whole number, got string",
		`{"maxEdits":1.5}`: "lux: invalid config: maxEdits: must be a whole number, got number 1.5",
	} {
		_, err := p.Parse(json.RawMessage(cfg))
		if err == nil || !strings.HasPrefix(err.Error(), "lux: invalid config") {
			t.Errorf("Parse(%s) = %v", cfg, err)
			continue
		}
		if err.Error() != want {
			t.Errorf("Parse(%s) = %q (want %q)", cfg, err, want)
		}
	}
}
