package orchestrator

import (
	"context"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The identity of a run computed from what Run returned equals the one
// computed from its record read back, so in-memory and on-disk
// comparisons agree.
func TestIdentityOfARunEqualsItsRecords(t *testing.T) {
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error {
		if !a.emit(ctx, lux.Event{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "fake", Detail: map[string]any{
			"sessionId": "s-1", "startedNs": int64(1<<60 + 1), "flags": []string{"<x>"},
		}}}) {
			return nil
		}
		a.done(ctx, nil)
		return nil
	})
	o := newTestOrchestrator(t, Options{Environment: map[string]any{"cores": uint64(1<<64 - 1), "image": "a&b"}})
	res, err := o.Run(context.Background(), &lux.Case{ID: "id", Prompt: "p", Driver: driverRef(scen)})
	require.NoError(t, err)
	got, err := record.ReadRun(res.Dir)
	require.NoError(t, err)
	assert.Equal(t, record.IdentityHash(res.Metadata), record.IdentityHash(got.Metadata))
}
