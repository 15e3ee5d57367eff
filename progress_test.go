package lux_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

// A typed payload given as a value is as visible to assertions as one
// given as a pointer.
func TestNewProgressTakesValuesAndPointers(t *testing.T) {
	for _, v := range []any{lux.Message{Text: "hi"}, &lux.Message{Text: "hi"}} {
		p := lux.NewProgress("p1", lux.KindAgentMessage, v)
		require.NotNil(t, p.Message, "%T", v)
		require.Equal(t, "hi", p.Message.Text)
		require.Empty(t, p.Payload)
	}
	p := lux.NewProgress("t1", lux.KindToolCall, lux.ToolCall{Name: "Bash", ToolUseID: "u1"})
	require.NotNil(t, p.ToolCall)
	require.Equal(t, "Bash", p.ToolCall.Name)
	p = lux.NewProgress("t2", lux.KindToolResult, lux.ToolResult{Name: "Bash", ToolUseID: "u1"})
	require.NotNil(t, p.ToolResult)
	p = lux.NewProgress("u", lux.KindUsage, lux.UsageReport{})
	require.NotNil(t, p.Usage)
	p = lux.NewProgress("x", "my-kind", map[string]any{"a": 1})
	require.JSONEq(t, `{"a":1}`, string(p.Payload))
}

// A shared kind with a payload of another type would make an event no
// assertion can read: it is a clear error, not a silent one.
func TestNewProgressRefusesAPayloadItsKindCannotCarry(t *testing.T) {
	require.PanicsWithValue(t, `lux: NewProgress: kind "agent-message" takes a lux.Message (or *lux.Message), got map[string]interface {}`, func() {
		lux.NewProgress("p1", lux.KindAgentMessage, map[string]any{"text": "hi"})
	})
	require.PanicsWithValue(t, `lux: NewProgress: kind "tool-call" takes a lux.ToolCall (or *lux.ToolCall), got *lux.Message`, func() {
		lux.NewProgress("p1", lux.KindToolCall, &lux.Message{Text: "hi"})
	})
}
