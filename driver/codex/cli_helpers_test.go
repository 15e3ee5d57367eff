package codex_test

// Tests against the real Codex CLI (codex 0.169.0, installed by
// .ci/install-clis.sh) and the scripted model server of package modeltest,
// on 127.0.0.1 only, without an API key. The CLI's proxy variables point
// at the server, which refuses and records anything else, so a test also
// proves that the run stayed on loopback.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/internal/ctxtest"
	"github.com/luxeval/lux/internal/drivertest"
	"github.com/luxeval/lux/modeltest"
)

// findCodex returns the path of the installed codex (see clitest.Find:
// $LUX_CLI_CACHE, the default cache, PATH, else .ci/install-clis.sh). It
// skips the test when the CLI cannot be had, except under CI.
func findCodex(t *testing.T) string {
	t.Helper()
	return clitest.Find(t, "codex")
}

// driverConfig is a codex config for the server: the installed CLI, the
// server as provider without retries, the host environment not inherited
// and the proxy pointed at the server. extra is merged in.
func driverConfig(t *testing.T, srv *modeltest.Server, extra map[string]any) map[string]any {
	t.Helper()
	env := map[string]string{}
	for _, kv := range srv.ProxyEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg := map[string]any{
		"command": findCodex(t),
		"model":   "gpt-5.5",
		"provider": map[string]any{
			"baseURL": srv.OpenAIBaseURL(), "requestMaxRetries": 0, "streamMaxRetries": 0,
		},
		"inheritEnv": false,
		"env":        env,
	}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func parse(t *testing.T, cfg map[string]any) *codex.Config {
	t.Helper()
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	c, err := codex.Parse(raw)
	require.NoError(t, err)
	return c
}

// sessionRun is what a run driven straight through a session shows.
type sessionRun struct {
	events    []lux.Event
	artifacts []lux.Artifact
	stderr    string
	workspace string
	runDir    string
}

func (r sessionRun) terminal() lux.Event {
	if len(r.events) == 0 {
		return lux.Event{}
	}
	return r.events[len(r.events)-1]
}

func (r sessionRun) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.workspace, name))
	require.NoError(t, err)
	return string(b)
}

// ofKind returns the progress events of a kind.
func (r sessionRun) ofKind(kind string) []*lux.Progress {
	var out []*lux.Progress
	for _, e := range r.events {
		if e.Type == lux.EventProgress && e.Progress.Kind == kind {
			out = append(out, e.Progress)
		}
	}
	return out
}

// drive runs one case through a session: it reads events until the
// terminal one, answering each interrupt with answer, then quiesces,
// collects and closes.
func drive(t *testing.T, c *codex.Config, prompt string, answer func(lux.Interrupt) lux.Answer) sessionRun {
	t.Helper()
	return driveCtx(t, context.Background(), c, prompt, answer)
}

// driveCtx is drive with parent as the context of the run.
func driveCtx(t *testing.T, parent context.Context, c *codex.Config, prompt string, answer func(lux.Interrupt) lux.Answer) sessionRun {
	t.Helper()
	ctx, cancel := ctxtest.Within(t, parent)
	defer cancel()
	run := sessionRun{runDir: t.TempDir()}
	run.workspace = filepath.Join(run.runDir, "artifacts")
	require.NoError(t, os.MkdirAll(run.workspace, 0o755))
	var stderr drivertest.Buffer
	s, err := c.Start(ctx, lux.StartInfo{CaseID: "t", Prompt: prompt, RunDir: run.runDir, Workspace: run.workspace, Stderr: &stderr})
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	for {
		ev, err := s.Next(ctx)
		require.NoError(t, err, "stderr:\n%s", stderr.String())
		run.events = append(run.events, ev)
		if ev.Type == lux.EventInterrupt {
			require.NotNil(t, answer, "unexpected interrupt %+v", ev.Interrupt)
			require.NoError(t, s.Respond(ctx, answer(*ev.Interrupt)))
		}
		if ev.Terminal() {
			break
		}
	}
	require.NoError(t, s.Quiesce(ctx))
	run.artifacts, err = s.Collect(ctx)
	require.NoError(t, err)
	run.stderr = stderr.String()
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := json.MarshalIndent(run.events, "", "  ")
			t.Logf("events:\n%s\nstderr:\n%s", b, run.stderr)
		}
	})
	return run
}

// assertHermetic checks that the CLI asked the server for nothing but the
// model API: no proxied request to another host, no unknown endpoint.
func assertHermetic(t *testing.T, srv *modeltest.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		assert.NotContains(t, []modeltest.Kind{modeltest.KindProxy, modeltest.KindUnknown}, r.Kind,
			"request %d: %s %s (host %s)", r.Seq, r.Method, r.Path, r.Host)
	}
	assert.NoError(t, srv.Err())
}

func shell(cmd string) modeltest.ToolCall {
	return modeltest.ToolCall{Name: "exec_command", Input: map[string]any{"cmd": cmd, "login": false}}
}

func patch(text string) modeltest.ToolCall {
	return modeltest.ToolCall{Name: "apply_patch", Input: text}
}
