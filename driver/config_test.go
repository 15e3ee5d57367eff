package driver_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/driver/subprocess"
)

// Every driver reports an unknown field and an invalid value at once.
func TestDriversReportEveryConfigProblem(t *testing.T) {
	raw := json.RawMessage(`{"bogus":1,"idleTimeout":"-1s"}`)
	for _, p := range []*lux.DriverPlugin{claudecode.Plugin(), codex.Plugin(), cursor.Plugin(), subprocess.Plugin()} {
		t.Run(p.Name, func(t *testing.T) {
			_, err := p.Parse(raw)
			require.True(t, errors.Is(err, lux.ErrInvalidConfig), "%v", err)
			var paths []string
			for _, e := range lux.ProblemsOf(err) {
				var fe *lux.FieldError
				require.True(t, errors.As(e, &fe), "%v is not a FieldError", e)
				paths = append(paths, fe.Path)
			}
			assert.Contains(t, paths, "bogus")
			assert.Contains(t, paths, "idleTimeout")
		})
	}
}
