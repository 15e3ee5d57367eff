package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateReportsEveryProblemWithItsPath(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{
		ID:       "bad",
		Prompt:   " ",
		Driver:   &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": "x", "idle": -1, "idel": 3}},
		Answerer: &lux.PluginRef{Name: "nobody"},
		Assertions: []lux.AssertionSpec{
			{Type: "file-has", Config: map[string]any{"text": "x"}},
			{Type: "no-such-check"},
			{Type: "fixed", Config: map[string]any{"score": "high"}},
		},
		Fixtures: filepath.Join(t.TempDir(), "missing"),
	}
	err := o.Validate(c)
	require.Error(t, err)
	assert.True(t, errors.Is(err, lux.ErrInvalidCase))
	msg := err.Error()
	for _, want := range []string{
		`orchestrator: case "bad"`,
		"prompt: required",
		`driver.config.idel: unknown field (did you mean "idle"?)`,
		`answerer.name: unknown plugin: answerer "nobody" (known: table)`,
		"assertions[0].path: required (name a file in the workspace)",
		`assertions[1].type: unknown plugin: assertion "no-such-check" (known: file-has, fixed)`,
		"assertions[2].score: must be a number",
		"fixtures: directory",
	} {
		assert.Contains(t, msg, want)
	}

	// Driver config problems found after decoding are reported too.
	c = &lux.Case{ID: "idle", Prompt: "p", Driver: &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": "x", "idle": -1}}}
	err = o.Validate(c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "driver.config.idle: must be positive")
}

func TestValidateDriverResolution(t *testing.T) {
	tests := []struct {
		name    string
		def     *lux.PluginRef
		own     *lux.PluginRef
		wantErr string
	}{
		{"no driver at all", nil, nil, "driver: required (name a driver in the case, or set Options.Driver (for every case) or Options.DefaultDriver (for cases that name none))"},
		{"unknown driver", nil, &lux.PluginRef{Name: "warp"}, `driver.name: unknown plugin: driver "warp" (known: fake)`},
		{"default used", &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": "x"}}, nil, ""},
		{"default merged with the case", &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": "x"}}, &lux.PluginRef{Name: "fake", Config: map[string]any{"idle": 3}}, ""},
		{"a default with no name", &lux.PluginRef{Config: map[string]any{"scenario": "x"}}, nil, "driver.name: required in Options.DefaultDriver"},
		{"merge keeps problems", &lux.PluginRef{Name: "fake", Config: map[string]any{"scenario": "x"}}, &lux.PluginRef{Name: "fake", Config: map[string]any{"idle": -3}}, "driver.config.idle: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTestOrchestrator(t, Options{DefaultDriver: tt.def})
			err := o.Validate(&lux.Case{ID: "c", Prompt: "p", Driver: tt.own})
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestRequiresIsCheckedBeforeAnythingStarts(t *testing.T) {
	started := false
	scen := addScenario(t, func(ctx context.Context, a *fakeAgent) error { started = true; return nil })
	o := newTestOrchestrator(t, Options{})
	c := &lux.Case{ID: "needs", Prompt: "p", Driver: driverRef(scen, lux.ReportsUsage), Requires: []lux.Capability{lux.CanAsk, lux.CanApprove}}
	res, err := o.Run(context.Background(), c)
	require.Error(t, err)
	assert.Nil(t, res)
	assert.True(t, errors.Is(err, ErrMissingCapability))
	assert.True(t, errors.Is(err, lux.ErrInvalidCase))
	assert.Contains(t, err.Error(), `requires: driver "fake" does not declare ask, approve (it declares: usage)`)
	var missing *MissingCapabilityError
	require.ErrorAs(t, err, &missing, "the refusal carries the driver and what it lacks")
	assert.Equal(t, "fake", missing.Driver)
	assert.Equal(t, []lux.Capability{lux.CanAsk, lux.CanApprove}, missing.Missing)
	assert.False(t, started)
	_, statErr := os.Stat(o.RunsRoot())
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "no record is created for a refused case")

	_, err = o.RunSuite(context.Background(), []*lux.Case{{ID: "ok", Prompt: "p", Driver: driverRef(scen)}, c})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "suite refused, 1 of 2 cases are invalid")
	assert.True(t, errors.Is(err, ErrMissingCapability))
	assert.True(t, errors.Is(err, lux.ErrInvalidCase))
	assert.Contains(t, err.Error(), `cases[1]: orchestrator: case "needs"`)
	assert.False(t, started)
}
