package assertion_test

import (
	"context"
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
		for _, c := range lux.ToolCalls(run.Events, lux.AnyAgent) {
			if c.Name == "Edit" {
				return lux.Fail("the agent edited "+fmt.Sprint(c.Input), nil), nil
			}
		}
		return lux.Pass("no edits", nil), nil
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
