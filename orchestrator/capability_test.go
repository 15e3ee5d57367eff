package orchestrator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/orchestrator"
)

func TestCheckCapabilities(t *testing.T) {
	rt := lux.Runtime{Capabilities: []lux.Capability{lux.ReportsTools, lux.ReportsUsage}}
	require.NoError(t, orchestrator.CheckCapabilities("cursor", rt, []lux.Capability{lux.ReportsUsage}))
	err := orchestrator.CheckCapabilities("cursor", rt, []lux.Capability{lux.CanAsk, lux.ReportsUsage, lux.CanApprove})
	require.ErrorIs(t, err, orchestrator.ErrMissingCapability)
	require.EqualError(t, err, `lux: driver lacks required capabilities: driver "cursor" does not declare ask, approve (it declares: tool-events, usage)`)
	var missing *orchestrator.MissingCapabilityError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, "cursor", missing.Driver)
	require.Equal(t, []lux.Capability{lux.CanAsk, lux.CanApprove}, missing.Missing)
	require.Equal(t, `driver "cursor" does not declare ask, approve (it declares: tool-events, usage)`, missing.Problem())
}
