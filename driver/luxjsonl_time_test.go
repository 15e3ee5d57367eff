package driver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
)

// A progress time a run record cannot hold makes the line off-protocol,
// like any other unusable ts; the last representable millisecond is kept.
func TestDecodeLuxJSONLTimeRange(t *testing.T) {
	tests := []struct {
		name string
		ts   string
		ok   bool
	}{
		{name: "year 9999", ts: "253402300799999", ok: true},
		{name: "year 10000", ts: "253402300800000"},
		{name: "huge", ts: "1e300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := driver.DecodeLuxJSONL([]byte(`{"type":"progress","id":"p","kind":"k","ts":` + tt.ts + `}`))
			require.Equal(t, tt.ok, ok)
			if ok {
				_, err := json.Marshal(ev)
				assert.NoError(t, err, "the event must fit in a run record")
			}
		})
	}
}
