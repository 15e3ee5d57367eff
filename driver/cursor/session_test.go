package cursor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/record"
)

// fakeCLI is the fake cursor-agent built from testdata/fakecursor.
var fakeCLI string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakecursor-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeCLI = filepath.Join(dir, "cursor-agent")
	build := exec.Command("go", "build", "-o", fakeCLI, "./testdata/fakecursor")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fake cursor-agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type run struct {
	sess      lux.Session
	workspace string
	stderr    *drivertest.Buffer
	argvFile  string
}

// start starts the fake CLI through the driver. cfg is merged over a test
// config that points at the fake; fake sets its FAKE_CURSOR_* variables.
func start(t *testing.T, cfg map[string]any, fake map[string]string) *run {
	t.Helper()
	return startOn(t, clock.Real(), cfg, fake)
}

// startOn is start with the session's timers on clk.
func startOn(t *testing.T, clk clock.Clock, cfg map[string]any, fake map[string]string) *run {
	t.Helper()
	r := &run{workspace: t.TempDir(), stderr: &drivertest.Buffer{}, argvFile: filepath.Join(t.TempDir(), "argv.json")}
	env := map[string]string{"FAKE_CURSOR_ARGV": r.argvFile}
	for k, v := range fake {
		if k == "FAKE_CURSOR_SCRIPT" {
			abs, err := filepath.Abs(filepath.Join("testdata", v))
			require.NoError(t, err)
			v = abs
		}
		env[k] = v
	}
	raw := map[string]any{"command": fakeCLI, "killGrace": "100ms", "resultGrace": "200ms", "idleTimeout": "30s"}
	for k, v := range cfg {
		if k == "env" {
			for ek, ev := range v.(map[string]string) {
				env[ek] = ev
			}
			continue
		}
		raw[k] = v
	}
	raw["env"] = env
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	dc, err := Plugin().Parse(b)
	require.NoError(t, err)
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	r.sess, err = dc.Start(clock.With(ctx, clk), lux.StartInfo{CaseID: "c", Prompt: "Create hello.txt", RunDir: t.TempDir(), Workspace: r.workspace, Stderr: r.stderr})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.sess.Close() })
	return r
}

// events reads events until the terminal one.
func (r *run) events(t *testing.T) []lux.Event {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var out []lux.Event
	for {
		ev, err := r.sess.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err, "events so far: %v", out)
		out = append(out, ev)
	}
}

func (r *run) argv(t *testing.T) (args []string, dir string, env map[string]string) {
	t.Helper()
	b, err := os.ReadFile(r.argvFile)
	require.NoError(t, err)
	var v struct {
		Args []string
		Dir  string
		Env  map[string]string
	}
	require.NoError(t, json.Unmarshal(b, &v))
	return v.Args, v.Dir, v.Env
}

func (r *run) pid() int { return r.sess.(*session).Pid() }

func last(evs []lux.Event) lux.Event {
	if len(evs) == 0 {
		return lux.Event{}
	}
	return evs[len(evs)-1]
}

// gone waits for process pid to end, by proc.WaitEnded (no polling); the
// safety net fails the test, it never decides it.
func gone(t *testing.T, pid int, msg string) {
	t.Helper()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	if err := proc.WaitEnded(ctx, pid); err != nil {
		t.Fatalf("%s (pid %d): %v", msg, pid, err)
	}
}

// readPid reads the pid the fake wrote to path before its first line: call
// it once the run's first event has come.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "the fake never wrote its worker's pid")
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err, "the fake wrote %q", b)
	return pid
}

func TestSessionHappyPath(t *testing.T) {
	// The fake writes its stderr after the result line, then exits: a long
	// result grace (never waited for in full) lets it do both before it is
	// stopped, and its stderr be copied before the pipes are closed.
	r := start(t, map[string]any{"resultGrace": "2m"}, map[string]string{
		"FAKE_CURSOR_SCRIPT":  "happy.jsonl",
		"FAKE_CURSOR_WRITE":   "hello.txt=hi\n;sub/notes.md=# notes",
		"FAKE_CURSOR_SYMLINK": "link.txt=/etc/hostname",
		"FAKE_CURSOR_STDERR":  "a warning on stderr",
	})
	evs := r.events(t)
	require.NotEmpty(t, evs)

	ready := evs[0]
	require.Equal(t, lux.EventReady, ready.Type)
	assert.Equal(t, AgentID, ready.Ready.AgentID)
	assert.Equal(t, "2026.09.10-fake001", ready.Ready.AgentVersion, "the CLI's --version is recorded")
	assert.Equal(t, "auto", ready.Ready.Model)
	assert.Regexp(t, `^5d0c7e52-8b1a-4c7e-9a51-\d{12}$`, ready.Ready.Detail["sessionId"], "the session id of this run")

	done := last(evs)
	require.Equal(t, lux.EventDone, done.Type, "last event: %+v", done.Error)
	assert.Equal(t, &lux.TokenUsage{Input: 32473, Output: 305, CacheRead: 96675, CacheCreation: 0}, done.Done.Usage)
	assert.Nil(t, done.Done.CostUSD, "the CLI reports no cost")
	for _, e := range evs[1:] {
		assert.False(t, e.Time.IsZero(), "event %s has no time", e.Type)
	}

	assert.Equal(t, record.ToolOutcomes{Reported: 3, Total: 3, Succeeded: 2, Failed: 1}, record.SummarizeTools(evs))
	assert.Equal(t, []string{"I'll create hello.txt and check it.", "Created `hello.txt` containing:\n\n```text\nhi\n```"}, assertion.AgentMessages(evs))
	var names []string
	for _, c := range assertion.ToolCalls(evs, assertion.AnyAgent) {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"edit", "shell", "shell"}, names)

	args, dir, env := r.argv(t)
	ws, err := filepath.Abs(r.workspace)
	require.NoError(t, err)
	assert.Equal(t, []string{"-p", "--output-format", "stream-json", "--model", "auto", "--trust", "--force", "--workspace", ws, "--", "Create hello.txt"}, args)
	assert.Equal(t, ws, dir, "the CLI runs in the workspace")
	assert.NotEmpty(t, env[TagEnv])

	arts, err := r.sess.Collect(context.Background())
	require.NoError(t, err)
	var paths []string
	for _, a := range arts {
		paths = append(paths, a.Path)
	}
	assert.Equal(t, []string{"hello.txt", "sub/notes.md"}, paths, "the symlink is not followed")
	assert.Contains(t, r.stderr.String(), "a warning on stderr", "stderr reaches the harness")
	assert.Contains(t, r.sess.(*session).StderrTail(), "a warning on stderr")
}

func TestSessionResultWithoutUsage(t *testing.T) {
	r := start(t, map[string]any{"model": "claude-4-sonnet"}, map[string]string{"FAKE_CURSOR_SCRIPT": "no-usage.jsonl"})
	evs := r.events(t)
	done := last(evs)
	require.Equal(t, lux.EventDone, done.Type)
	assert.Nil(t, done.Done.Usage, "usage the CLI did not report is unavailable, not zero")
	usage := lux.Usage{Agent: done.Done.Usage}
	assert.False(t, usage.AgentAvailable())

	// On disk the done event has no usage field at all.
	b, err := json.Marshal(done)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"usage"`)
	assert.Equal(t, record.ToolOutcomes{Reported: 2, Total: 2, Succeeded: 2}, record.SummarizeTools(evs))
}

func TestSessionPartialOutput(t *testing.T) {
	r := start(t, map[string]any{"streamPartialOutput": true}, map[string]string{"FAKE_CURSOR_SCRIPT": "partial.jsonl"})
	evs := r.events(t)
	require.Equal(t, lux.EventDone, last(evs).Type)
	assert.Equal(t, []string{"Let me look.", "There is one file: README.md."}, assertion.AgentMessages(evs), "deltas joined, flushes not repeated")
	args, _, _ := r.argv(t)
	assert.Contains(t, args, "--stream-partial-output")
}

func TestSessionFailures(t *testing.T) {
	tests := []struct {
		name      string
		cfg       map[string]any
		fake      map[string]string
		wantReady bool
		want      []string // in the error's reason
	}{
		{
			name: "init, then exit 1 with the reason on stderr and no result",
			fake: map[string]string{
				"FAKE_CURSOR_SCRIPT": "no-result.jsonl",
				"FAKE_CURSOR_STDERR": "ActionRequiredError: Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade.",
				"FAKE_CURSOR_EXIT":   "1",
			},
			wantReady: true,
			want: []string{
				"cursor-agent exited without a result line (code=1, signal=none)",
				`this plan can only use "model": "auto"`,
				"stderr:\nActionRequiredError: Named models unavailable",
			},
		},
		{
			name: "untrusted workspace: exit 1 with nothing on stdout",
			cfg:  map[string]any{"skipTrust": true, "approval": "reject"},
			want: []string{
				"cursor-agent exited without a result line (code=1, signal=none)",
				"the workspace is not trusted",
				"Workspace Trust Required",
			},
		},
		{
			name:      "exit 0 without a result is still a failure",
			fake:      map[string]string{"FAKE_CURSOR_SCRIPT": "no-result.jsonl"},
			wantReady: true,
			want:      []string{"cursor-agent exited without a result line (code=0, signal=none)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The stderr in the reason is what its copy has read within the
			// result grace after the exit: a long grace, never waited for in
			// full (nothing holds the pipes), so that it is all there.
			cfg := map[string]any{"resultGrace": "2m"}
			for k, v := range tt.cfg {
				cfg[k] = v
			}
			r := start(t, cfg, tt.fake)
			evs := r.events(t)
			end := last(evs)
			require.Equal(t, lux.EventError, end.Type)
			assert.Equal(t, lux.ExitError, end.Error.ExitReason)
			for _, w := range tt.want {
				assert.Contains(t, end.Error.Reason, w)
			}
			assert.Equal(t, tt.wantReady, evs[0].Type == lux.EventReady)
			require.NoError(t, r.sess.Quiesce(context.Background()))
			assert.False(t, proc.Alive(r.pid()))
		})
	}
}

func TestSessionStopsWhatTheCLILeaves(t *testing.T) {
	tests := []struct {
		name  string
		after string
	}{
		{"the CLI exits after its result", ""},
		{"the CLI hangs after its result", "hang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "worker.pid")
			r := start(t, nil, map[string]string{
				"FAKE_CURSOR_SCRIPT": "happy.jsonl",
				"FAKE_CURSOR_ORPHAN": pidFile,
				"FAKE_CURSOR_AFTER":  tt.after,
			})
			evs := r.events(t)
			worker := readPid(t, pidFile)
			done := last(evs)
			require.Equal(t, lux.EventDone, done.Type, "a result line is the end of the run, exit or not")
			require.NotNil(t, done.Done.Usage)
			// The CLI is stopped after the result grace without waiting for Quiesce.
			gone(t, r.pid(), "the CLI was not stopped after its result")

			require.NoError(t, r.sess.Quiesce(context.Background()))
			gone(t, worker, "the detached worker outlived the run")
		})
	}
}

// The result grace runs on a manual clock: a CLI that exits while it
// lasts exits by itself, however long that takes; one that does not is
// killed once the clock passes it.
func TestQuiesceHonoursResultGrace(t *testing.T) {
	t.Run("a CLI that exits within the grace exits by itself", func(t *testing.T) {
		r := startOn(t, &clock.Manual{}, map[string]any{"resultGrace": "20s"},
			map[string]string{"FAKE_CURSOR_SCRIPT": "happy.jsonl", "FAKE_CURSOR_AFTER": "usr1", "FAKE_CURSOR_EXIT": "0"})
		require.Equal(t, lux.EventDone, last(r.events(t)).Type)
		// Quiesce right after the result, as the orchestrator does; the CLI
		// exits once Quiesce waits for it.
		pid := r.pid()
		ctx := ctxtest.OnWait(context.Background(), func() { _ = syscall.Kill(pid, syscall.SIGUSR1) })
		require.NoError(t, r.sess.Quiesce(ctx))
		assert.Equal(t, proc.Status{Exited: true, Code: 0}, r.sess.(*session).Status())
	})
	t.Run("a CLI that never exits is killed once the grace has passed", func(t *testing.T) {
		m := &clock.Manual{}
		r := startOn(t, m, map[string]any{"resultGrace": "20s"},
			map[string]string{"FAKE_CURSOR_SCRIPT": "happy.jsonl", "FAKE_CURSOR_AFTER": "hang"})
		require.Equal(t, lux.EventDone, last(r.events(t)).Type)
		quiesced := make(chan error, 1)
		go func() { quiesced <- r.sess.Quiesce(context.Background()) }()
		m.Advance(20 * time.Second)
		require.NoError(t, <-quiesced)
		assert.Equal(t, proc.Status{Code: -1, Signal: "SIGKILL"}, r.sess.(*session).Status())
	})
}

func TestSessionCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "worker.pid")
	r := start(t, nil, map[string]string{"FAKE_CURSOR_SCRIPT": "stall.jsonl", "FAKE_CURSOR_AFTER": "hang", "FAKE_CURSOR_ORPHAN": pidFile})
	ctx, cancel := context.WithCancel(context.Background())
	var seen []lux.EventType
	for {
		ev, err := r.sess.Next(ctx)
		require.NoError(t, err)
		seen = append(seen, ev.Type)
		if ev.Progress != nil && ev.Progress.ToolCall != nil {
			break // the agent is now inside a tool call that never ends
		}
	}
	worker := readPid(t, pidFile)
	cancel()
	_, err := r.sess.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, proc.Alive(r.pid()), "cancelling Next leaves the agent to Quiesce")

	require.NoError(t, r.sess.Quiesce(context.Background()))
	assert.False(t, proc.Alive(r.pid()))
	gone(t, worker, "the detached worker outlived the run")
	assert.Equal(t, []lux.EventType{lux.EventReady, lux.EventProgress}, seen)
}

func TestSessionIdleTimeout(t *testing.T) {
	// The CLI stalls inside a tool call after its init line; the idle
	// clock runs on a manual clock, advanced once the CLI is ready.
	m := &clock.Manual{}
	r := startOn(t, m, map[string]any{"idleTimeout": "200ms"}, map[string]string{"FAKE_CURSOR_SCRIPT": "stall.jsonl", "FAKE_CURSOR_AFTER": "hang"})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	ev, err := r.sess.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, lux.EventReady, ev.Type)
	// Every line re-arms the idle clock as it is read, before its event
	// is out: the clock is advanced once the event of the script's last
	// line (the tool call it stalls in) has come, so no line is left to
	// re-arm it afterwards.
	ev, err = r.sess.Next(ctx)
	require.NoError(t, err)
	require.NotNil(t, ev.Progress, "%+v", ev)
	require.NotNil(t, ev.Progress.ToolCall, "%+v", ev.Progress)
	m.Advance(200 * time.Millisecond)
	end := last(r.events(t))
	require.NoError(t, r.sess.Quiesce(context.Background()))
	assert.False(t, proc.Alive(r.pid()))
	require.Equal(t, lux.EventError, end.Type)
	assert.Equal(t, lux.ErrorEvent{ExitReason: lux.ExitIdleTimeout, Reason: "no event for 200ms"}, *end.Error)
}

func TestSessionLinesKeepTheRunAlive(t *testing.T) {
	// 37 thinking deltas make one event: an idle timeout counts lines, not
	// events, so each line re-arms the idle clock (here a manual one).
	m := &clock.Manual{}
	r := startOn(t, m, nil, map[string]string{"FAKE_CURSOR_SCRIPT": "thinking.jsonl"})
	evs := r.events(t)
	end := last(evs)
	require.Equal(t, lux.EventDone, end.Type, "%+v", end.Error)
	var thoughts []string
	for _, e := range evs {
		if e.Progress != nil && e.Progress.Kind == lux.KindReasoning {
			thoughts = append(thoughts, e.Progress.Message.Text)
		}
	}
	require.Len(t, thoughts, 1)
	assert.True(t, strings.HasPrefix(thoughts[0], "Let me weigh the options") && strings.HasSuffix(thoughts[0], "until the thought ends here."), thoughts[0])
	assert.Greater(t, m.Scheduled(), 37+len(evs), "not every line re-armed the idle clock")
}

func TestSessionEnvironment(t *testing.T) {
	t.Setenv("LUX_CURSOR_TEST_HOST", "host-value")
	t.Setenv("LUX_CURSOR_TEST_KEY", "key-123")
	tests := []struct {
		name   string
		cfg    map[string]any
		want   map[string]string // variables that must have these values
		absent []string          // variables that must not be set
	}{
		{
			name: "inherited, with env added and the key from apiKeyEnv",
			cfg:  map[string]any{"apiKeyEnv": "LUX_CURSOR_TEST_KEY"},
			want: map[string]string{"LUX_CURSOR_TEST_HOST": "host-value", "CURSOR_API_KEY": "key-123"},
		},
		{
			name:   "not inherited: only PATH, HOME, env and the tag",
			cfg:    map[string]any{"inheritEnv": false},
			want:   map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin"},
			absent: []string{"LUX_CURSOR_TEST_HOST", "LUX_CURSOR_TEST_KEY"},
		},
		{
			name:   "an empty API key is never passed",
			cfg:    map[string]any{"env": map[string]string{"CURSOR_API_KEY": ""}},
			want:   map[string]string{"LUX_CURSOR_TEST_HOST": "host-value"},
			absent: []string{"CURSOR_API_KEY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := start(t, tt.cfg, map[string]string{"FAKE_CURSOR_SCRIPT": "no-usage.jsonl"})
			require.Equal(t, lux.EventDone, last(r.events(t)).Type)
			_, _, env := r.argv(t)
			for k, v := range tt.want {
				assert.Equal(t, v, env[k], k)
			}
			for _, k := range tt.absent {
				_, ok := env[k]
				assert.False(t, ok, "%s is set", k)
			}
			assert.NotEmpty(t, env[TagEnv])
		})
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name   string
		cfg    map[string]any
		prompt string
		want   string
	}{
		{
			name: "missing executable names the install command",
			cfg:  map[string]any{"command": "/nonexistent/cursor-agent"},
			want: "cursor: /nonexistent/cursor-agent not found (install it: curl https://cursor.com/install -fsS | bash",
		},
		{
			name: "missing executable on PATH",
			cfg:  map[string]any{"command": "lux-no-such-cursor-agent"},
			want: "cursor: lux-no-such-cursor-agent not found (install it: curl https://cursor.com/install -fsS | bash",
		},
		{
			name: "unset apiKeyEnv",
			cfg:  map[string]any{"apiKeyEnv": "LUX_CURSOR_TEST_UNSET"},
			want: "cursor: apiKeyEnv: environment variable LUX_CURSOR_TEST_UNSET is not set",
		},
		{
			name:   "empty prompt",
			prompt: "  ",
			want:   "cursor: empty prompt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := map[string]any{"command": fakeCLI}
			for k, v := range tt.cfg {
				raw[k] = v
			}
			b, err := json.Marshal(raw)
			require.NoError(t, err)
			dc, err := Parse(b)
			require.NoError(t, err)
			prompt := tt.prompt
			if prompt == "" {
				prompt = "hi"
			}
			_, err = dc.Start(context.Background(), lux.StartInfo{Prompt: prompt, Workspace: t.TempDir()})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestLineCap(t *testing.T) {
	r := start(t, map[string]any{"maxLineBytes": 500}, map[string]string{"FAKE_CURSOR_SCRIPT": "happy.jsonl", "FAKE_CURSOR_AFTER": "hang"})
	evs := r.events(t)
	end := last(evs)
	require.NotNil(t, end.Error, "%+v", evs)
	assert.Equal(t, "stdout line exceeded 500 bytes", end.Error.Reason)
	require.NoError(t, r.sess.Quiesce(context.Background()))
}
