// Package harnesstest points harness models at a scripted model server
// for tests: the real Claude Code and Codex CLIs, answering one-shot calls
// with the turns of a script in order.
package harnesstest

import (
	"strings"
	"testing"

	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/modeltest"
)

// Server starts a model server whose turns answer one-shot calls in order
// (each call, told apart by its prompt, takes the next turn; a CLI's retry
// gets its call's turn again) and closes it when the test ends.
func Server(t testing.TB, script modeltest.Script) *modeltest.Server {
	t.Helper()
	return modeltest.Start(t, script, modeltest.WithOneShotTurns(), modeltest.WithSideCalls(nil))
}

// Claude is a harness config that runs the real Claude Code against srv.
func Claude(t testing.TB, srv *modeltest.Server) harness.Config {
	t.Helper()
	env := map[string]string{}
	for _, kv := range srv.ClaudeCodeEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return harness.Config{Command: clitest.Find(t, "claude"), Env: env}
}

// Codex is a harness config that runs the real Codex against srv.
func Codex(t testing.TB, srv *modeltest.Server) harness.Config {
	t.Helper()
	return harness.Config{Provider: harness.Codex, Command: clitest.Find(t, "codex"), Args: srv.CodexArgs()}
}
