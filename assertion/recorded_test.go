package assertion_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/luxtest"
)

// recorded reads the events of a golden run a driver's tests recorded from
// the real CLI (one JSON event per line, bare or after "event ").
func recorded(t *testing.T, path string) *lux.Run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
	require.NoError(t, err)
	var events []lux.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "event ") {
			line = strings.TrimPrefix(line, "event ")
		} else if !strings.HasPrefix(line, "{") {
			continue // what the driver sent the CLI
		}
		var e lux.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		events = append(events, e)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, events, path)
	return luxtest.NewRun(t, nil, events...)
}

// The tool-result assertions grade the shell and file tools of recorded
// Claude Code and Codex runs as they grade an MCP probe.
func TestToolResultAssertionsOverRecordedRuns(t *testing.T) {
	claudeWrite := recorded(t, "driver/claudecode/testdata/write-bash.golden")
	claudeDeny := recorded(t, "driver/claudecode/testdata/approve-deny.golden")
	codexExec := recorded(t, "driver/codex/testdata/exec/write-and-run.golden")
	codexDecline := recorded(t, "driver/codex/testdata/appserver/approve-decline.golden")
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }

	luxtest.TestAssertion(t, plugin(t, "tool-result-contains"),
		luxtest.AssertionCase{Name: "claude Bash output", Config: raw(`{"tool":"Bash","text":"Hello"}`), Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "claude Write", Config: raw(`{"tool":"Write","text":"File created successfully"}`), Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex command output", Config: raw(`{"tool":"command_execution","text":"Hello!","occurrence":"first"}`), Run: codexExec, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex last command", Config: raw(`{"tool":"command_execution","text":"Hello!","occurrence":"last"}`), Run: codexExec, Want: luxtest.Fail},
	)
	luxtest.TestAssertion(t, plugin(t, "tool-result-is-error"),
		luxtest.AssertionCase{Name: "claude denied Bash", Config: raw(`{"tool":"Bash"}`), Run: claudeDeny, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "claude Bash ran", Config: raw(`{"tool":"Bash"}`), Run: claudeWrite, Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "codex exit 3", Config: raw(`{"tool":"command_execution"}`), Run: codexExec, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex declined", Config: raw(`{"tool":"file_change"}`), Run: codexDecline, Want: luxtest.Pass},
	)
	luxtest.TestAssertion(t, plugin(t, "tool-result-json-pointer-equals"),
		luxtest.AssertionCase{Name: "claude structured Bash", Config: raw(`{"tool":"Bash","jsonPointer":"/stdout","value":"Hello"}`), Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "claude structured Write", Config: raw(`{"tool":"Write","jsonPointer":"/type","value":"create"}`), Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex exit code", Config: raw(`{"tool":"command_execution","jsonPointer":"/exitCode","value":0,"occurrence":"first"}`), Run: codexExec, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex last exit code", Config: raw(`{"tool":"command_execution","jsonPointer":"/exitCode","value":0}`), Run: codexExec, Want: luxtest.Fail},
	)
	luxtest.TestAssertion(t, plugin(t, "no-error-results"),
		luxtest.AssertionCase{Name: "claude clean", Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "claude denied", Run: claudeDeny, Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "codex failed command", Run: codexExec, Want: luxtest.Fail},
	)
	luxtest.TestAssertion(t, plugin(t, "tool-invocation"),
		luxtest.AssertionCase{Name: "claude Bash with its output", Config: raw(`{"tool":"Bash","input":{"jsonPointer":"/command","contains":"cat hello.txt"},"output":{"jsonPointer":"/stdout","equals":"Hello"}}`), Run: claudeWrite, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex failing command", Config: raw(`{"tool":"command_execution","result":"error","input":{"jsonPointer":"/command","matches":"exit [1-9]"}}`), Run: codexExec, Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "codex no successful exit 3", Config: raw(`{"tool":"command_execution","input":{"jsonPointer":"/command","contains":"exit 3"}}`), Run: codexExec, Want: luxtest.Fail},
	)
}
