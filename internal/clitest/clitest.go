// Package clitest finds the real agent CLIs (Claude Code, Codex) for
// integration tests, installing the pinned versions with
// .ci/install-clis.sh when they are missing.
//
// A test that cannot get its CLI is skipped with the reason, except under
// CI (the CI environment variable set), where it fails: CI must exercise
// the real CLIs.
package clitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luxeval/lux/internal/clis"
)

var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

// Find returns the path of the CLI named name ("claude" or "codex"). It
// looks in $LUX_CLI_CACHE/node_modules/.bin, then the default cache
// ($HOME/.cache/lux-clis), then PATH; failing those it runs
// .ci/install-clis.sh once per test process.
func Find(t testing.TB, name string) string {
	t.Helper()
	if p := clis.Lookup(name); p != "" {
		return p
	}
	installOnce.Do(func() { installDir, installErr = install() })
	if installErr == nil {
		if p := filepath.Join(installDir, name); clis.IsExecutable(p) {
			return p
		}
		installErr = fmt.Errorf("%s not found in %s after installing", name, installDir)
	}
	msg := fmt.Sprintf("clitest: the %s CLI is not available: %v", name, installErr)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI must run the real CLIs: run .ci/install-clis.sh)")
	}
	t.Skip(msg)
	return ""
}

func install() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, ".ci", "install-clis.sh")
	cmd := exec.Command("bash", script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
