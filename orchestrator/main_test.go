package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain doubles as a tiny agent program: with LUX_TEST_AGENT=hello the
// test binary writes hello.txt into $LUX_ARTIFACTS_DIR and exits. The
// benchmarks launch it as a real process.
func TestMain(m *testing.M) {
	if os.Getenv("LUX_TEST_AGENT") == "hello" {
		if err := os.WriteFile(filepath.Join(os.Getenv("LUX_ARTIFACTS_DIR"), "hello.txt"), []byte("hello"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
