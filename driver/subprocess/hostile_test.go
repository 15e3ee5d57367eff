package subprocess_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// runScript runs one case whose agent is the shell script, through the
// orchestrator, and returns the result.
func runScript(t *testing.T, c *lux.Case, script string) *orchestrator.RunResult {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	c.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", script}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	return res
}

// Bytes that are not UTF-8 in an agent's payload are replaced before they
// reach events.jsonl, which stays valid JSON text, and the event says so.
func TestInvalidUTF8FromTheAgentIsReplacedInTheRecord(t *testing.T) {
	res := runScript(t, &lux.Case{ID: "bad-utf8", Prompt: "p"}, `echo '{"type":"ready","agentId":"a"}'
printf '{"type":"progress","id":"p1","kind":"blob","payload":{"s":"a\377\376b"}}\n'
echo '{"type":"done"}'`)
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
	data, err := os.ReadFile(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err)
	assert.True(t, utf8.Valid(data), "events.jsonl is not UTF-8")
	var line string
	for l := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(l, `"p1"`) {
			line = l
		}
	}
	require.NotEmpty(t, line)
	assert.Contains(t, line, `"sanitized":"invalid UTF-8 replaced with U+FFFD"`)
	assert.Contains(t, line, `"s":"a\ufffd\ufffdb"`)
	evs, err := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err, "a strict reader reads it")
	var found bool
	for _, e := range evs {
		if e.Type == lux.EventProgress && e.Progress.ID == "p1" {
			found = true
			assert.JSONEq(t, `{"s":"a\ufffd\ufffdb"}`, string(e.Progress.Payload))
		}
	}
	assert.True(t, found)
}
