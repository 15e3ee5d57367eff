package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
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
