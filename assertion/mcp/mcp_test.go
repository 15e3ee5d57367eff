package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion/mcp"
	"github.com/luxeval/lux/driver/mcpprobe"
	"github.com/luxeval/lux/luxtest"
)

func plugin(t *testing.T, typ string) *lux.AssertionPlugin {
	t.Helper()
	for _, p := range mcp.All() {
		if p.Type == typ {
			return p
		}
	}
	t.Fatalf("no assertion %q", typ)
	return nil
}

func progress(kind string, v any) lux.Event {
	p := lux.NewProgress(kind, kind, v)
	return lux.Event{Type: lux.EventProgress, Progress: &p}
}

// probed is a run of a server "calc" 2.0.0 with tools and logging, that
// listed add and sub (an earlier list had only add).
func probed(t *testing.T) *lux.Run {
	return luxtest.NewRun(t, nil,
		progress(mcpprobe.KindInit, &mcpprobe.Init{ServerInfo: &mcpprobe.ServerInfo{Name: "calc", Version: "2.0.0"},
			Capabilities: map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}, "prompts": false}}),
		progress(mcpprobe.KindToolsList, &mcpprobe.ToolsList{Tools: []mcpprobe.ListedTool{{Name: "add"}}, Pages: 1}),
		progress(mcpprobe.KindToolsList, &mcpprobe.ToolsList{Tools: []mcpprobe.ListedTool{{Name: "add"}, {Name: "sub"}}, Pages: 1}),
	)
}

func broken(t *testing.T, kind string) *lux.Run {
	var e lux.Event
	require.NoError(t, json.Unmarshal([]byte(`{"type":"progress","id":"x","kind":"`+kind+`","payload":{"tools":"add","serverInfo":"calc"}}`), &e))
	return luxtest.NewRun(t, nil, e)
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestServerInfoEquals(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "server-info-equals"),
		luxtest.AssertionCase{Name: "both", Config: raw(`{"server":"calc","version":"2.0.0"}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "version", Config: raw(`{"version":"2.0.0"}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "wrong version", Config: raw(`{"server":"calc","version":"1.0.0"}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no init", Config: raw(`{"server":"calc"}`), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "malformed", Config: raw(`{"server":"calc"}`), Run: broken(t, mcpprobe.KindInit), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "nothing to check", Config: raw(`{}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "name is the display name", Config: raw(`{"serverName":"calc"}`), Want: luxtest.Invalid},
	)
	c, err := plugin(t, "server-info-equals").Parse(raw(`{"server":"calc","version":"1.0.0"}`))
	require.NoError(t, err)
	res, err := c.Evaluate(t.Context(), probed(t))
	require.NoError(t, err)
	assert.Equal(t, `server version "2.0.0", want "1.0.0"`, res.Comment)
}

func TestToolListed(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "tool-listed"),
		luxtest.AssertionCase{Name: "listed", Config: raw(`{"tool":"sub"}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "not listed", Config: raw(`{"tool":"mul"}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "expected absent", Config: raw(`{"tool":"mul","expected":false}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "expected absent but listed", Config: raw(`{"tool":"add","expected":false}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no list", Config: raw(`{"tool":"add"}`), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "malformed", Config: raw(`{"tool":"add"}`), Run: broken(t, mcpprobe.KindToolsList), Want: luxtest.Ungraded},
		luxtest.AssertionCase{Name: "tool required", Config: raw(`{}`), Want: luxtest.Invalid},
	)
}

func TestToolsListedCount(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "tools-listed-count"),
		luxtest.AssertionCase{Name: "last list counts", Config: raw(`{"min":2,"max":2}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "too few", Config: raw(`{"min":3}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "too many", Config: raw(`{"max":1}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no list", Config: raw(`{"max":1}`), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no bound", Config: raw(`{}`), Want: luxtest.Invalid},
		luxtest.AssertionCase{Name: "min over max", Config: raw(`{"min":3,"max":1}`), Want: luxtest.Invalid},
	)
}

func TestCapabilityAbsent(t *testing.T) {
	luxtest.TestAssertion(t, plugin(t, "capability-absent"),
		luxtest.AssertionCase{Name: "resources absent", Config: raw(`{"capability":"resources"}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "prompts false", Config: raw(`{"capability":"prompts"}`), Run: probed(t), Want: luxtest.Pass},
		luxtest.AssertionCase{Name: "logging present", Config: raw(`{"capability":"logging"}`), Run: probed(t), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "no init", Config: raw(`{"capability":"logging"}`), Want: luxtest.Fail},
		luxtest.AssertionCase{Name: "unknown", Config: raw(`{"capability":"sampling"}`), Want: luxtest.Invalid},
	)
}

func TestRegister(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, mcp.Register(reg))
	assert.Equal(t, []string{"capability-absent", "server-info-equals", "tool-listed", "tools-listed-count"}, reg.Assertions())
	assert.ErrorIs(t, mcp.Register(reg), lux.ErrDuplicatePlugin)
}
