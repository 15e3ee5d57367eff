package assertion_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

func Example() {
	// A workspace as an agent might leave it.
	ws, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(ws)
	_ = os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Demo\n\n## Usage\n"), 0o644)
	_ = os.Symlink("/etc/passwd", filepath.Join(ws, "notes.txt"))
	run := &lux.Run{Workspace: ws}

	reg := lux.NewRegistry()
	if err := assertion.Register(reg); err != nil {
		panic(err)
	}
	for _, spec := range []lux.AssertionSpec{
		assertion.FileContains("README.md", "## Usage"),
		assertion.FileExists("CHANGELOG.md"),
		assertion.FileContains("notes.txt", "root"),
	} {
		p, _ := reg.Assertion(spec.Type)
		raw, _ := lux.ConfigJSON(spec.Config)
		check, err := p.Parse(raw)
		if err != nil {
			panic(err)
		}
		res, err := check.Evaluate(context.Background(), run)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-13s %-5v %s\n", spec.Type, res.Passed, res.Comment)
	}
	// Output:
	// file-contains true  "README.md" contains "## Usage"
	// file-exists   false path "CHANGELOG.md" does not exist (in the workspace)
	// file-contains false path "notes.txt" goes through a symlink (in the workspace)
}

func ExamplePredicate() {
	noEdits := assertion.Predicate("no-edits", func(_ context.Context, run *lux.Run) (lux.Result, error) {
		for _, c := range assertion.ToolCalls(run.Events, assertion.AnyAgent) {
			if c.Name == "Edit" {
				return assertion.Fail("the agent edited "+fmt.Sprint(c.Input), nil), nil
			}
		}
		return assertion.Pass("no edits", nil), nil
	})
	reg := lux.NewRegistry()
	_ = reg.RegisterAssertion(noEdits) // cases now refer to {"type": "no-edits"}

	call := lux.NewProgress("tc-1", lux.KindToolCall, &lux.ToolCall{Name: "Edit", ToolUseID: "1", Input: "main.go"})
	run := &lux.Run{Events: []lux.Event{{Type: lux.EventProgress, Progress: &call}}}
	check, _ := noEdits.Parse(nil)
	res, _ := check.Evaluate(context.Background(), run)
	fmt.Println(res.Passed, res.Comment)
	// Output:
	// false the agent edited main.go
}

// editBudget is the config of an assertion of one's own. Validate runs on
// the decoded config, in the same pass as the strict decoding, and fills
// in the default tool.
type editBudget struct {
	MaxEdits int    `json:"maxEdits"`
	Tool     string `json:"tool,omitempty"`
}

func (b *editBudget) Validate() error {
	var p lux.Problems
	if b.MaxEdits < 1 {
		p.AddFix("maxEdits", fmt.Sprintf("must be at least 1, got %d", b.MaxEdits), "give the most edits allowed")
	}
	if b.Tool == "" {
		b.Tool = "Edit"
	}
	return p.Err(nil)
}

// A config with a misspelled field and a bad value gets both problems, each
// at its field, in one error.
func ExamplePredicateWith() {
	budget := assertion.PredicateWith("edit-budget", func(_ context.Context, run *lux.Run, b editBudget) (lux.Result, error) {
		n := 0
		for _, c := range assertion.ToolCalls(run.Events, assertion.AnyAgent) {
			if c.Name == b.Tool {
				n++
			}
		}
		if n > b.MaxEdits {
			return assertion.Fail(fmt.Sprintf("%d edits with %s, over %d", n, b.Tool, b.MaxEdits), nil), nil
		}
		return assertion.Pass(fmt.Sprintf("%d edits with %s", n, b.Tool), nil), nil
	})
	_, err := budget.Parse([]byte(`{"maxEdits": 0, "tol": "Write"}`))
	fmt.Println(errors.Is(err, lux.ErrInvalidConfig), errors.Is(err, lux.ErrUnknownField))
	for _, problem := range lux.ProblemsOf(err) {
		fmt.Println(problem)
	}
	check, _ := budget.Parse([]byte(`{"maxEdits": 2}`))
	res, _ := check.Evaluate(context.Background(), &lux.Run{})
	fmt.Println(res.Passed, res.Comment)
	// Output:
	// true true
	// tol: unknown field (did you mean "tool"?)
	// maxEdits: must be at least 1, got 0 (give the most edits allowed)
	// true 0 edits with Edit
}

// Each constructor takes the options of its own fields: Flags, Min and Max
// are file-regex-count's, ID and Weight every assertion's. An option of
// another assertion's field, such as Kind here, would not compile.
func ExampleFileRegexCount() {
	spec := assertion.FileRegexCount("build.log", `^warning:`,
		assertion.Flags("im"), assertion.Max(3), assertion.ID("few-warnings"), assertion.Weight(2))
	raw, _ := lux.ConfigJSON(spec.Config)
	fmt.Println(spec.Type, spec.ID, spec.Weight)
	fmt.Println(string(raw))
	// Output:
	// file-regex-count few-warnings 2
	// {"flags":"im","max":3,"path":"build.log","pattern":"^warning:"}
}
