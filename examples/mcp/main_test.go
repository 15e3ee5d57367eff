package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

// TestExample runs the whole example: the real server, probed over stdio,
// graded by the real assertions.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and probes the example server")
	}
	root := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, root), out.String())
	for _, re := range []string{
		`(?m)^server-surface\s+PASS\s+done`,
		`(?m)^add-note\s+PASS\s+done`,
		`(?m)^count-words\s+PASS\s+done`,
		`(?m)^rejects-bad-title\s+PASS\s+done`,
		`Records: `,
	} {
		assert.Regexp(t, regexp.MustCompile(re), out.String())
	}

	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1)
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	dir := s.RunDir(1)
	data, err := os.ReadFile(filepath.Join(dir, record.ArtifactsDir, "notes", "groceries.md"))
	require.NoError(t, err, "the note the server wrote is collected with the run")
	assert.Equal(t, "- milk\n- eggs\n", string(data))
	stderr, err := os.ReadFile(filepath.Join(dir, "stderr.log"))
	require.NoError(t, err)
	assert.Contains(t, string(stderr), "notesserver: saved notes/groceries.md", "the server's stderr is kept")
}
