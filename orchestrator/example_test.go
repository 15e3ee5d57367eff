package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
)

// An agent is any program speaking lux-jsonl; here, a shell script that
// writes one file.
func Example() {
	root, _ := os.MkdirTemp("", "lux-runs-")
	defer os.RemoveAll(root)

	reg := lux.NewRegistry()
	if err := errors.Join(reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg)); err != nil {
		fmt.Println(err)
		return
	}
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: root})

	agent := `echo '{"type":"ready","agentId":"sh-agent"}'
echo hello > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"done"}'`
	res, err := o.Run(context.Background(), &lux.Case{
		ID:     "hello",
		Prompt: "write hello.txt",
		Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": "sh", "args": []string{"-c", agent}}},
		Assertions: []lux.AssertionSpec{
			{Type: "file-contains", Config: map[string]any{"path": "hello.txt", "text": "hello"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Metadata.ExitReason, res.Verdict(), res.Metadata.Driver.AgentID, res.Artifacts[0].Path)
	for _, a := range res.Grading.Assertions {
		fmt.Println(a.ID, a.Passed, a.Comment)
	}
	// Output:
	// done pass sh-agent hello.txt
	// file-contains:1 true "hello.txt" contains "hello"
}

// Two runs just made are compared by package compare from their records;
// the comparison says whether they are repetitions of one measurement and
// how they differ.
func Example_compare() {
	root, _ := os.MkdirTemp("", "lux-runs-")
	defer os.RemoveAll(root)
	reg := lux.NewRegistry()
	if err := errors.Join(reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg)); err != nil {
		fmt.Println(err)
		return
	}
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: root})
	c := &lux.Case{
		ID:     "hello",
		Prompt: "write hello.txt",
		Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{"command": "sh", "args": []string{"-c",
			`echo '{"type":"ready","agentId":"sh-agent"}'; echo hello > "$LUX_ARTIFACTS_DIR/hello.txt"; echo '{"type":"done"}'`}}},
		Assertions: []lux.AssertionSpec{{Type: "file-contains", Config: map[string]any{"path": "hello.txt", "text": "hello"}}},
	}
	ctx := context.Background()
	a, err := o.Run(ctx, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := o.Run(ctx, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	cmp, err := compare.Runs(ctx, a.Dir, b.Dir, compare.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cmp.Verdict, len(cmp.Mismatches), cmp.Gate.Failed)
	// Output:
	// no detectable difference 0 false
}
