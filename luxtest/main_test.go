package luxtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// echoagent is the example lux-jsonl agent, built once for the tests.
var echoagent string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if p := os.Getenv("LUXTEST_ECHOAGENT"); p != "" {
		echoagent = p // a child test process: the parent built it
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "luxtest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	echoagent = filepath.Join(dir, "echoagent")
	build := exec.Command("go", "build", "-o", echoagent, "github.com/luxeval/lux/examples/agents/echoagent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building echoagent:", err)
		return 2
	}
	return m.Run()
}
