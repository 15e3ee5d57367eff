package modeltest_test

// Integration tests: the real Claude Code and Codex CLIs against the server.
// They find the CLIs in $LUX_CLI_CACHE (by default ~/.cache/lux-clis) or
// on PATH, installing them with .ci/install-clis.sh when missing, and are
// skipped with -short. Every CLI runs with a fresh HOME and config
// directory, and with its proxy pointed at the server, so that any attempt
// to reach another host is refused and shows in the request log.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/modeltest"
)

// findCLI returns the path of the CLI, installing it when missing (see
// internal/clitest), or skips the test with -short.
func findCLI(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: not running the real %s CLI", name)
	}
	return clitest.Find(t, name)
}

// cliRun is the outcome of one CLI run.
type cliRun struct {
	exitCode int
	lines    []map[string]any // stdout JSONL
	stderr   string
	dir      string // the workspace
}

// runCLI runs a CLI in a fresh workspace with a minimal environment plus
// env, and parses its JSONL output. CFGDIR in env stands for a fresh
// configuration directory.
func runCLI(t *testing.T, srv *modeltest.Server, bin string, args, env []string) cliRun {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	tmp := filepath.Join(root, "tmp")
	cfg := filepath.Join(root, "cfg") // CLAUDE_CONFIG_DIR or CODEX_HOME
	for _, d := range []string{dir, home, tmp, cfg} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8"}, srv.ProxyEnv()...)
	cmd.Env = append(cmd.Env, env...)
	for i, kv := range cmd.Env {
		cmd.Env[i] = strings.ReplaceAll(kv, "CFGDIR", cfg)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	run := cliRun{stderr: stderr.String(), dir: dir}
	if exit, ok := err.(*exec.ExitError); ok {
		run.exitCode = exit.ExitCode()
	} else {
		require.NoError(t, err, "stderr:\n%s", stderr.String())
	}
	require.NoError(t, ctx.Err(), "the CLI did not finish; stderr:\n%s", stderr.String())
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil {
			run.lines = append(run.lines, line)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", run.exitCode, stdout.String(), stderr.String())
		}
	})
	return run
}

// last returns the last output line of the given type.
func (r cliRun) last(typ string) map[string]any {
	for i := len(r.lines) - 1; i >= 0; i-- {
		if r.lines[i]["type"] == typ {
			return r.lines[i]
		}
	}
	return nil
}

func (r cliRun) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	require.NoError(t, err)
	return string(b)
}

// assertHermetic checks that the CLI asked the server for nothing but the
// model API: no proxy request, no unknown endpoint.
func assertHermetic(t *testing.T, srv *modeltest.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		assert.NotContains(t, []modeltest.Kind{modeltest.KindProxy, modeltest.KindUnknown}, r.Kind,
			"request %d: %s %s (host %s)", r.Seq, r.Method, r.Path, r.Host)
	}
}

type turnSummary struct {
	Turn, Attempt, Status int
	Stream                bool
	Failure               string
}

func summarize(reqs []modeltest.Request) []turnSummary {
	var out []turnSummary
	for _, r := range reqs {
		out = append(out, turnSummary{r.Turn, r.Attempt, r.Status, r.Stream, r.Failure})
	}
	return out
}

func claudeArgs(prompt string) []string {
	return []string{"-p", prompt, "--output-format", "stream-json", "--verbose",
		"--permission-mode", "bypassPermissions", "--no-session-persistence"}
}

func claudeEnv(srv *modeltest.Server) []string {
	return append(srv.ClaudeCodeEnv(), "CLAUDE_CONFIG_DIR=CFGDIR", "IS_SANDBOX=1")
}

func TestClaudeCode(t *testing.T) {
	claude := findCLI(t, "claude")
	t.Parallel()

	t.Run("write, bash, answer", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{Text: "I'll create the file.", ToolCalls: []modeltest.ToolCall{
				{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello\n"}},
			}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50}},
			{Thinking: "Now a command.", ToolCalls: []modeltest.ToolCall{
				{Name: "Bash", Input: map[string]any{"command": "echo hi > b.txt && cat b.txt", "description": "write b.txt"}},
			}, Usage: modeltest.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 900}},
			{Text: "done", Usage: modeltest.Usage{InputTokens: 1300, OutputTokens: 5}},
		})
		run := runCLI(t, srv, claude, claudeArgs("make hello"), claudeEnv(srv))

		require.Equal(t, 0, run.exitCode)
		assert.Equal(t, "Hello\n", run.file(t, "hello.txt"))
		assert.Equal(t, "hi\n", run.file(t, "b.txt"))
		result := run.last("result")
		require.NotNil(t, result)
		assert.Equal(t, false, result["is_error"])
		assert.Equal(t, "done", result["result"])
		assert.Equal(t, 3500.0, dig(result, "usage", "input_tokens"))
		assert.Equal(t, 900.0, dig(result, "usage", "cache_read_input_tokens"))
		assert.Equal(t, 85.0, dig(result, "usage", "output_tokens"))

		reqs := srv.TurnRequests()
		assert.Equal(t, []turnSummary{{0, 1, 200, true, ""}, {1, 1, 200, true, ""}, {2, 1, 200, true, ""}}, summarize(reqs))
		require.Len(t, reqs, 3)
		assert.Equal(t, "make hello", reqs[0].LastUserText()[strings.LastIndex(reqs[0].LastUserText(), "\n")+1:])
		assert.True(t, reqs[0].HasTool("Write") && reqs[0].HasTool("Bash"), "tools: %v", reqs[0].Tools)
		write, ok := reqs[2].ToolResult("Write")
		require.True(t, ok)
		assert.Contains(t, write.Text, "File created successfully")
		bash, ok := reqs[2].ToolResult("Bash")
		require.True(t, ok)
		assert.Equal(t, "hi", bash.Text)
		assert.NoError(t, srv.Err())
		assertHermetic(t, srv)
	})

	t.Run("retry after 500, fallback after a cut stream", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{ToolCalls: []modeltest.ToolCall{{Name: "Bash", Input: map[string]any{"command": "true", "description": "nothing"}}},
				Fail: &modeltest.Failure{Status: 500, Times: 1}},
			{Text: "recovered", Fail: &modeltest.Failure{Cut: true, After: 0, Times: 1}},
		})
		run := runCLI(t, srv, claude, claudeArgs("go"), claudeEnv(srv))

		require.Equal(t, 0, run.exitCode)
		assert.Equal(t, "recovered", run.last("result")["result"])
		assert.Equal(t, []turnSummary{
			{0, 1, 500, true, "status 500"},
			{0, 2, 200, true, ""},
			{1, 1, 200, true, "cut after 0 events"},
			{1, 2, 200, false, ""}, // the non-streaming fallback
		}, summarize(srv.TurnRequests()))
		assertHermetic(t, srv)
	})

	t.Run("error turn", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{Fail: &modeltest.Failure{Status: 400, Message: "scripted failure"}},
		})
		run := runCLI(t, srv, claude, claudeArgs("go"), claudeEnv(srv))

		assert.Equal(t, 1, run.exitCode)
		result := run.last("result")
		require.NotNil(t, result)
		assert.Equal(t, true, result["is_error"])
		assert.Equal(t, 400.0, result["api_error_status"])
		assert.Contains(t, result["result"], "scripted failure")
		reqs := srv.TurnRequests()
		require.NotEmpty(t, reqs)
		for _, r := range reqs {
			assert.Equal(t, 0, r.Turn)
			assert.Equal(t, 400, r.Status)
		}
		assertHermetic(t, srv)
	})
}

func codexArgs(srv *modeltest.Server, prompt string) []string {
	args := append([]string{"exec", "--json", "--skip-git-repo-check"}, srv.CodexArgs()...)
	return append(args, "-m", "gpt-5.5", "--sandbox", "workspace-write", "--ephemeral", prompt)
}

func codexEnv() []string {
	return []string{"CODEX_HOME=CFGDIR"}
}

func TestCodex(t *testing.T) {
	codex := findCLI(t, "codex")
	t.Parallel()

	t.Run("command, patch, answer", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{Thinking: "Plan: run a command, then patch.", Text: "I'll run a command first.", ToolCalls: []modeltest.ToolCall{
				{Name: "exec_command", Input: map[string]any{"cmd": "echo hi > b.txt && cat b.txt", "login": false}},
			}, Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50, ReasoningTokens: 10}},
			{ToolCalls: []modeltest.ToolCall{
				{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: hello.txt\n+Hello from the model\n*** End Patch\n"},
			}, Usage: modeltest.Usage{InputTokens: 200, OutputTokens: 30, CacheReadTokens: 1000}},
			{Text: "done", Usage: modeltest.Usage{InputTokens: 300, OutputTokens: 5, CacheReadTokens: 1000}},
		})
		run := runCLI(t, srv, codex, codexArgs(srv, "make hello"), codexEnv())

		require.Equal(t, 0, run.exitCode)
		assert.Equal(t, "hi\n", run.file(t, "b.txt"))
		assert.Equal(t, "Hello from the model\n", run.file(t, "hello.txt"))
		assert.Equal(t, "done", dig(run.last("item.completed"), "item", "text"))
		usage := run.last("turn.completed")["usage"]
		assert.Equal(t, 3500.0, dig(usage, "input_tokens"))
		assert.Equal(t, 2000.0, dig(usage, "cached_input_tokens"))
		assert.Equal(t, 85.0, dig(usage, "output_tokens"))
		assert.Equal(t, 10.0, dig(usage, "reasoning_output_tokens"))

		reqs := srv.TurnRequests()
		assert.Equal(t, []turnSummary{{0, 1, 200, true, ""}, {1, 1, 200, true, ""}, {2, 1, 200, true, ""}}, summarize(reqs))
		require.Len(t, reqs, 3)
		assert.Equal(t, "make hello", reqs[0].LastUserText())
		assert.True(t, reqs[0].HasTool("apply_patch") && reqs[0].HasTool("exec_command"), "tools: %v", reqs[0].Tools)
		cmd, ok := reqs[2].ToolResult("exec_command")
		require.True(t, ok)
		assert.Contains(t, cmd.Text, "Output:\nhi\n")
		patch, ok := reqs[2].ToolResult("apply_patch")
		require.True(t, ok)
		assert.Contains(t, patch.Text, "A hello.txt")
		assert.Empty(t, reqs[0].Header.Get("Authorization"), "the provider has no env_key")
		assert.NoError(t, srv.Err())
		assertHermetic(t, srv)
	})

	t.Run("retries", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{ToolCalls: []modeltest.ToolCall{{Name: "exec_command", Input: map[string]any{"cmd": "true", "login": false}}},
				Fail: &modeltest.Failure{Status: 500, Times: 1}},
			{ToolCalls: []modeltest.ToolCall{{Name: "exec_command", Input: map[string]any{"cmd": "true", "login": false}}},
				Fail: &modeltest.Failure{Cut: true, After: 2, Times: 1}},
			{Text: "recovered", Fail: &modeltest.Failure{StreamError: true, After: 1, Times: 1}},
		})
		run := runCLI(t, srv, codex, codexArgs(srv, "go"), codexEnv())

		require.Equal(t, 0, run.exitCode)
		assert.Equal(t, "recovered", dig(run.last("item.completed"), "item", "text"))
		assert.Equal(t, []turnSummary{
			{0, 1, 500, true, "status 500"}, {0, 2, 200, true, ""},
			{1, 1, 200, true, "cut after 2 events"}, {1, 2, 200, true, ""},
			{2, 1, 200, true, "stream error after 1 events"}, {2, 2, 200, true, ""},
		}, summarize(srv.TurnRequests()))
		assertHermetic(t, srv)
	})

	t.Run("error turn", func(t *testing.T) {
		t.Parallel()
		srv := modeltest.Start(t, modeltest.Script{
			{Fail: &modeltest.Failure{Status: 400, Message: "scripted failure"}},
		})
		run := runCLI(t, srv, codex, codexArgs(srv, "go"), codexEnv())

		assert.Equal(t, 1, run.exitCode)
		failed := run.last("turn.failed")
		require.NotNil(t, failed)
		assert.Contains(t, dig(failed, "error", "message"), "scripted failure")
		for _, r := range srv.TurnRequests() {
			assert.Equal(t, 400, r.Status)
		}
		assertHermetic(t, srv)
	})
}
