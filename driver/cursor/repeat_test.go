package cursor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/internal/repeattest"
	"github.com/luxeval/lux/orchestrator"
)

// Two runs of one case are repetitions of one measurement: the workspace
// and session id the CLI reports in its init line never enter the identity.
func TestRepeatedRunsShareOneIdentity(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(cursor.Plugin()))
	c := &lux.Case{ID: "hello", Prompt: "Create hello.txt", Driver: fakeDriver(t, "happy.jsonl", nil)}
	repeattest.Suites(t, context.Background(), reg, orchestrator.Options{}, []*lux.Case{c})
}
