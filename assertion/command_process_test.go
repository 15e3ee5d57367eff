package assertion_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/internal/proc"
)

// The command sees the minimal environment and nothing else of the
// harness's: no API key, whatever its name.
func TestCommandEnvironmentIsMinimal(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CURSOR_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"} {
		t.Setenv(k, "sk-fake-"+k)
	}
	run := workspace(t)
	res := grade(t, "command-exits-zero", `{"command":"env"}`, run)
	if !res.Passed {
		t.Fatalf("env failed: %+v", res)
	}
	stdout := res.Detail.(map[string]any)["stdout"].(string)
	if strings.Contains(stdout, "sk-fake-") {
		t.Errorf("the command saw a secret of the harness:\n%s", stdout)
	}
	allowed := append(slices.Clone(assertion.MinimalEnvNames), "PWD", "OLDPWD", "SHLVL", "_")
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		name, _, _ := strings.Cut(line, "=")
		if !slices.Contains(allowed, name) {
			t.Errorf("the command saw %q, not in the minimal environment", name)
		}
	}
}

// Both output streams are bounded, each on its own.
func TestCommandOutputBoundedOnBothStreams(t *testing.T) {
	run := workspace(t)
	res := grade(t, "command-exits-zero",
		`{"command":"head -c 100000 /dev/zero | tr '\\000' e >&2; printf out; exit 1"}`, run)
	d := res.Detail.(map[string]any)
	if res.Passed || d["stderr"] != strings.Repeat("e", assertion.MaxCommandOutput) || d["stderrTruncated"] != true ||
		d["stdout"] != "out" || d["stdoutTruncated"] != false {
		t.Errorf("result = %+v", res)
	}
}

// Output that is not UTF-8 is kept readable and bounded in characters.
func TestCommandBinaryOutput(t *testing.T) {
	run := workspace(t)
	res := grade(t, "command-exits-zero", `{"command":"yes \"$(printf 'a\\377')\" | tr -d '\\n' | head -c 20000"}`, run)
	d := res.Detail.(map[string]any)
	out := d["stdout"].(string)
	if !res.Passed || out != strings.Repeat("a\uFFFD", assertion.MaxCommandOutput/2) || d["stdoutTruncated"] != true {
		t.Errorf("stdout = %d runes %q..., truncated %v", len([]rune(out)), out[:min(len(out), 12)], d["stdoutTruncated"])
	}
}

// What a command leaves running in the background is stopped once it
// exits, so nothing outlives the assertion.
func TestCommandBackgroundChildIsStopped(t *testing.T) {
	run := workspace(t)
	res := grade(t, "command-exits-zero", `{"command":"sleep 30 & echo $! > child.pid; exit 0"}`, run)
	if !res.Passed {
		t.Fatalf("result = %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(run.Workspace, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the shell wrote %q", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a safety net only
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("background child %d still running after the command exited: %v", pid, err)
	}
}

// The command runs in cwd, inside the workspace.
func TestCommandCwd(t *testing.T) {
	run := workspace(t)
	res := grade(t, "command-exits-zero", `{"command":"pwd -P","cwd":"src/deep"}`, run)
	want, err := filepath.EvalSymlinks(filepath.Join(run.Workspace, "src", "deep"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(res.Detail.(map[string]any)["stdout"].(string)); !res.Passed || got != want {
		t.Errorf("pwd = %q, want %q (%+v)", got, want, res)
	}
}
