// Package exsetup is what the examples that run echoagent share: where
// an example's own files are, and the agent built from its source.
package exsetup

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// SourceDir returns the directory of the calling example's source file,
// where its fixtures and project files are, so the example runs from any
// working directory; fallback (relative to the module root) when the
// source location is not known.
func SourceDir(fallback string) string {
	_, file, _, ok := runtime.Caller(1)
	if !ok {
		return fallback
	}
	return filepath.Dir(file)
}

// BuildEchoAgent compiles examples/agents/echoagent into dir and returns
// the executable's absolute path.
func BuildEchoAgent(ctx context.Context, dir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(dir, "echoagent"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./examples/agents/echoagent")
	cmd.Dir = filepath.Join(SourceDir("examples/internal/exsetup"), "..", "..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the example agent: %v\n%s", err, b)
	}
	return out, nil
}
