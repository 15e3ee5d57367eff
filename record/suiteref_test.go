package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeSuite writes a suite.json under root/.suites/name.
func writeSuite(t *testing.T, root, name, label string, started time.Time) string {
	t.Helper()
	dir := filepath.Join(root, SuitesDir, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	b, err := json.Marshal(SuiteManifest{SuiteID: name, StartedAt: started, Status: SuitePassed, Label: label, Items: []SuiteItem{}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteFile), b, 0o644))
	return dir
}

func TestResolveSuite(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	oldMain := writeSuite(t, root, "2026-01-02T03-04-05-000Z", "main", t0)
	newMain := writeSuite(t, root, "2026-01-02T03-05-05-000Z", "main", t0.Add(time.Minute))
	// Named earlier than the main suites, but started later: the recorded
	// start time decides, not the directory name.
	pr := writeSuite(t, root, "2026-01-01T00-00-00-000Z", "pr-7", t0.Add(2*time.Minute))
	_ = oldMain

	for _, tt := range []struct{ ref, want string }{
		{"latest", pr},
		{"label:main", newMain},
		{"label:pr-7", pr},
		{newMain, newMain}, // a directory is itself
	} {
		got, err := ResolveSuite(root, tt.ref)
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, got, tt.ref)
	}

	_, err := ResolveSuite(root, "label:nightly")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no suite labelled "nightly"`)
	assert.Contains(t, err.Error(), filepath.Join(root, SuitesDir))
	assert.Contains(t, err.Error(), "3 suites")
	assert.Contains(t, err.Error(), "main, pr-7") // the labels there are

	_, err = ResolveSuite(root, "label:")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "label:NAME")

	empty := t.TempDir()
	_, err = ResolveSuite(empty, "latest")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no suite under "+filepath.Join(empty, SuitesDir))

	// Two suites labelled alike that started at the same instant: which is
	// the newest cannot be told.
	writeSuite(t, root, "2026-01-02T03-06-05-000Z", "tie", t0.Add(5*time.Minute))
	writeSuite(t, root, "2026-01-02T03-06-05-000Z-2", "tie", t0.Add(5*time.Minute))
	_, err = ResolveSuite(root, "label:tie")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ambiguous")
	assert.Contains(t, err.Error(), "2026-01-02T03-06-05-000Z-2")
}

func TestIsSuiteRef(t *testing.T) {
	assert.True(t, IsSuiteRef("latest"))
	assert.True(t, IsSuiteRef("label:main"))
	assert.False(t, IsSuiteRef(".lux-runs/.suites/x"))
}
