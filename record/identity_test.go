package record

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type readyDetail struct {
	Flags []string `json:"flags"`
	Depth int      `json:"depth"`
}

// A run's identity is the same computed from the metadata in memory and
// from run.json read back, whatever the driver put in its ready detail and
// the user in the environment; times come back equal too.
func TestIdentityHashSurvivesAJSONRoundTrip(t *testing.T) {
	local := time.FixedZone("CET", 3600)
	tests := []struct {
		name   string
		mutate func(m *Metadata)
	}{
		{"sample", func(m *Metadata) {}},
		{"large integers in the ready detail", func(m *Metadata) {
			m.Driver.Detail = map[string]any{"startedNs": int64(1<<60 + 1), "max": uint64(1<<64 - 1), "small": 3}
		}},
		{"a struct and odd text in the ready detail", func(m *Metadata) {
			m.Driver.Detail = map[string]any{"cfg": readyDetail{Flags: []string{"<a&b>"}, Depth: 2}, "f32": float32(0.1), "at": time.Date(2025, 1, 2, 3, 4, 5, 6, local)}
		}},
		{"an environment with big numbers and markup", func(m *Metadata) {
			m.Provenance.Environment = json.RawMessage(`{"cores": 12345678901234567890, "ratio": 1.50, "note": "<gpu & co>"}`)
		}},
		{"dirty source without snapshot, local times with monotonic clock", func(m *Metadata) {
			m.Provenance.Source.Git.Dirty = true
			m.StartedAt = time.Now()
			m.EndedAt = time.Now().In(local)
			end := time.Now()
			m.AgentEndedAt = &end
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := sampleMetadata()
			tt.mutate(m)
			dir := t.TempDir()
			require.NoError(t, WriteJSON(filepath.Join(dir, MetadataFile), m))
			got, _, err := ReadMetadata(dir)
			require.NoError(t, err)
			assert.Equal(t, IdentityHash(m), IdentityHash(got))
			assert.True(t, m.StartedAt.Equal(got.StartedAt), "startedAt %v, read back %v", m.StartedAt, got.StartedAt)
			assert.True(t, m.EndedAt.Equal(got.EndedAt), "endedAt")
			assert.True(t, m.AgentEndedAt.Equal(*got.AgentEndedAt), "agentEndedAt")
			assert.Equal(t, m.Duration(), got.Duration())

			// A second round trip changes nothing at all.
			dir2 := t.TempDir()
			require.NoError(t, WriteJSON(filepath.Join(dir2, MetadataFile), got))
			again, _, err := ReadMetadata(dir2)
			require.NoError(t, err)
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("second round trip (-first +second):\n%s", diff)
			}
		})
	}
}
