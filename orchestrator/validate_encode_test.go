package orchestrator

import (
	"errors"
	"math"
	"testing"

	"github.com/luxeval/lux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A case holding a value that does not encode as JSON is refused with the
// field that holds it, since its record could not be written.
func TestValidateNamesUnencodableFields(t *testing.T) {
	scen := addScenario(t, writeHello)
	tests := []struct {
		name string
		c    *lux.Case
		path string
	}{
		{"meta", &lux.Case{ID: "m", Prompt: "p", Driver: driverRef(scen), Meta: map[string]any{"owner": make(chan int)}}, "meta.owner: "},
		{"meta NaN", &lux.Case{ID: "m", Prompt: "p", Driver: driverRef(scen), Meta: map[string]any{"budget": math.NaN()}}, "meta.budget: "},
		{"assertion config", &lux.Case{ID: "m", Prompt: "p", Driver: driverRef(scen),
			Assertions: []lux.AssertionSpec{{Type: "file-has", Config: map[string]any{"path": make(chan int)}}}}, "assertions[0]: "},
	}
	o := newTestOrchestrator(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := o.Validate(tt.c)
			require.Error(t, err)
			assert.True(t, errors.Is(err, lux.ErrInvalidCase), err.Error())
			assert.Contains(t, err.Error(), tt.path)
			assert.Contains(t, err.Error(), "JSON")
		})
	}
}
