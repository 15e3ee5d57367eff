package driver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// A lux-jsonl line of exactly the cap, made of two-byte characters that
// the pipe delivers in pieces, arrives whole; one byte more ends the run.
func TestSessionLineAtTheCap(t *testing.T) {
	const n = 300_000 // "é" is two bytes: the line spans many reads
	prefix := `{"type":"progress","id":"p","kind":"agent-message","payload":{"text":"`
	suffix := `"}}`
	size := len(prefix) + 2*n + len(suffix)
	script := func(extra string) []string {
		return []string{"-c", fmt.Sprintf(`echo '{"type":"ready","agentId":"a"}'; printf '%%s' '%s'; yes é | head -n %d | tr -d '\n'; printf '%%s\n' '%s%s'; sleep 60`,
			prefix, n, extra, suffix)}
	}
	for _, tt := range []struct {
		name  string
		extra string
		want  string
	}{
		{name: "at the cap", want: "progress"},
		{name: "one byte over", extra: "x", want: fmt.Sprintf("stdout line exceeded %d bytes", size)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, driver.SessionOptions{
				Protocol:     &driver.LuxJSONL{},
				Process:      driver.ProcessSpec{Path: "/bin/sh", Args: script(tt.extra), Env: driver.BuildEnv(false, map[string]string{"PATH": driver.DefaultPath, "LC_ALL": "C.UTF-8"})},
				MaxLineBytes: size,
			})
			ctx, cancel := ctxtest.Safety(t)
			defer cancel()
			ev, err := s.Next(ctx)
			require.NoError(t, err)
			require.Equal(t, lux.EventReady, ev.Type)
			ev, err = s.Next(ctx)
			require.NoError(t, err)
			if tt.want == "progress" {
				require.Equal(t, lux.EventProgress, ev.Type, "%+v", ev.Error)
				assert.Equal(t, strings.Repeat("é", n)+tt.extra, ev.Progress.Message.Text)
				return
			}
			require.Equal(t, lux.EventError, ev.Type)
			assert.Equal(t, tt.want, ev.Error.Reason)
		})
	}
}
