package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/luxeval/lux/internal/fakeproc"
)

// TestMain doubles as a tiny agent program: with LUX_TEST_AGENT=hello the
// test binary writes hello.txt into $LUX_ARTIFACTS_DIR and exits. The
// benchmarks launch it as a real process.
func TestMain(m *testing.M) {
	if os.Getenv("LUX_TEST_AGENT") == "asker" {
		// Ready, a file, our pid, a question, then wait for ever.
		dir := os.Getenv("LUX_ARTIFACTS_DIR")
		_ = os.WriteFile(filepath.Join(dir, "partial.txt"), []byte("half"), 0o600)
		_ = os.WriteFile(os.Getenv("LUX_TEST_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o600)
		fmt.Println(`{"type":"ready","agentId":"asker"}`)
		fmt.Println(`{"type":"interrupt","kind":"ask","id":"q1","question":"Shall I go on?"}`)
		fakeproc.Hang()
	}
	if os.Getenv("LUX_TEST_AGENT") == "hello" {
		if err := os.WriteFile(filepath.Join(os.Getenv("LUX_ARTIFACTS_DIR"), "hello.txt"), []byte("hello"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			fakeproc.Exit(1)
		}
		fakeproc.Exit(0)
	}
	os.Exit(m.Run())
}
