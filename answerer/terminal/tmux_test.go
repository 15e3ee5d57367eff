package terminal_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// agentScript asks a question and an approval over lux-jsonl and records
// the answer lines it reads.
const agentScript = `#!/bin/sh
echo '{"type":"ready","agentId":"asker","agentVersion":"1"}'
echo '{"type":"interrupt","kind":"ask","id":"q1","question":"Which database?"}'
read a1
echo '{"type":"interrupt","kind":"approve","id":"a1","request":{"command":"rm -rf build"}}'
read a2
echo '{"type":"done"}'
`

// TestUnderTmux runs lux run -interactive in a real terminal (tmux),
// types the answers, and finds them in the run record.
func TestUnderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed (apt-get install tmux) so the terminal answerer is not tested in a terminal")
	}
	dir := t.TempDir()
	lux := filepath.Join(dir, "lux")
	build := exec.Command("go", "build", "-o", lux, "../../cmd/lux")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	agent := filepath.Join(dir, "agent.sh")
	require.NoError(t, os.WriteFile(agent, []byte(agentScript), 0o755))
	caseFile := filepath.Join(dir, "ask.case.json")
	require.NoError(t, os.WriteFile(caseFile, []byte(fmt.Sprintf(`{"id": "ask", "prompt": "ask",
		"driver": {"name": "subprocess", "config": {"command": %q}}}`, agent)), 0o644))
	runs := filepath.Join(dir, "runs")
	done := filepath.Join(dir, "done")
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		require.NoError(t, err, "tmux %v: %s", args, out)
		return string(out)
	}
	shell := fmt.Sprintf("%s run -interactive -j 3 -q -runs-root %s %s; echo $? > %s; tmux -S %s wait-for -S finished",
		lux, runs, caseFile, done, sock)
	tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "lux", "sh", "-c", shell+"; sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })

	// waitFor polls the pane until it shows want, a bounded number of
	// times (each poll is one tmux round trip, no sleep).
	waitFor := func(want string) string {
		t.Helper()
		var pane string
		for range 20000 {
			pane = tmux("capture-pane", "-p", "-t", "lux")
			if strings.Contains(pane, want) {
				return pane
			}
		}
		t.Fatalf("the pane never showed %q:\n%s", want, pane)
		return ""
	}
	pane := waitFor("Answer:")
	require.Contains(t, pane, "Which database?")
	require.Contains(t, pane, "one at a time")
	tmux("send-keys", "-t", "lux", "PostgreSQL", "Enter")
	waitFor("[y/N]")
	tmux("send-keys", "-t", "lux", "n", "Enter")
	waitFor("Reason (optional):")
	tmux("send-keys", "-t", "lux", "never delete", "Enter")
	tmux("wait-for", "finished")

	var events []string
	require.NoError(t, filepath.WalkDir(runs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "events.jsonl" {
			events = append(events, p)
		}
		return err
	}))
	require.Len(t, events, 1, "one run recorded under %s", runs)
	rec, err := os.ReadFile(events[0])
	require.NoError(t, err)
	require.Contains(t, string(rec), `"text":"PostgreSQL"`)
	require.Contains(t, string(rec), `"reason":"never delete"`)
}
