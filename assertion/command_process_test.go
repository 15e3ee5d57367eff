package assertion_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

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
	pidFile := filepath.Join(t.TempDir(), "child.pid") // outside the workspace: the command runs on a copy
	res := grade(t, "command-exits-zero", `{"command":"sleep 30 & echo $! > '`+pidFile+`'; exit 0"}`, run)
	if !res.Passed {
		t.Fatalf("result = %+v", res)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the shell wrote %q", b)
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("background child %d still running after the command exited: %v", pid, err)
	}
}

// The command runs in cwd, inside the workspace.
func TestCommandCwd(t *testing.T) {
	run := workspace(t)
	res := grade(t, "command-exits-zero", `{"command":"pwd -P; test -f x.go","cwd":"src/deep"}`, run)
	got := strings.TrimSpace(res.Detail.(map[string]any)["stdout"].(string))
	if !res.Passed || !strings.HasSuffix(got, filepath.Join(filepath.Base(run.Workspace), "src", "deep")) {
		t.Errorf("pwd = %q, want the copy's src/deep (%+v)", got, res)
	}
}

// The command runs on a copy of the workspace: what it writes, removes or
// changes there never reaches the workspace, and the copy is gone once it
// exits. Assertions naming the same shareCopy share one copy.
func TestCommandRunsOnACopy(t *testing.T) {
	run := workspace(t)
	run.Scratch = t.TempDir()
	before := treeOf(t, run.Workspace)
	for _, cfg := range []string{
		`{"command":"echo x >> README.md && rm src/main.go && mkdir -p .cache && echo c > .cache/x && chmod 0 src && touch new.txt"}`,
		`{"command":"echo x > graded.txt","in":"run"}`,
		`{"command":"echo built > bin.txt","shareCopy":"build"}`,
	} {
		if res := grade(t, "command-exits-zero", cfg, run); !res.Passed {
			t.Fatalf("%s: %+v", cfg, res)
		}
	}
	if after := treeOf(t, run.Workspace); after != before {
		t.Errorf("the workspace changed:\n%s\nwas\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(run.Dir, "graded.txt")); err == nil {
		t.Error("a command with in: run wrote into the run directory")
	}
	for cfg, pass := range map[string]bool{
		`{"command":"test -f bin.txt","shareCopy":"build"}`:  true,
		`{"command":"test -f bin.txt","shareCopy":"other"}`:  false,
		`{"command":"test -f bin.txt"}`:                      false,
		`{"command":"test -f README.md && test -L link.md"}`: true,
	} {
		if res := grade(t, "command-exits-zero", cfg, run); res.Passed != pass {
			t.Errorf("%s: passed %v, want %v (%s)", cfg, res.Passed, pass, res.Comment)
		}
	}
	entries, err := os.ReadDir(run.Scratch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "share-") {
			t.Errorf("a command's copy was left behind: %s", e.Name())
		}
	}
}

// treeOf lists every entry under dir with its mode, size and content.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s %d", path, info.Mode(), info.Size())
		if info.Mode().IsRegular() && info.Size() < 1<<20 {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
