package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuickstart runs the whole example: the real subprocess driver, the
// scripted answerer and the built-in assertions against echoagent.
func TestQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example agent")
	}
	root := t.TempDir()
	var out bytes.Buffer
	err := quickstart(context.Background(), &out, root, 1)
	require.NoError(t, err, out.String())
	text := out.String()
	for _, re := range []string{
		`(?m)^hello-file\s+1\s+PASS\s+100%\s+done\s`,
		`(?m)^favorite-color\s+1\s+PASS\s+100%\s+done\s+\S+\s+\d+\s+1$`,
		`(?m)^notes-summary\s+1\s+PASS\s+100%\s+done\s`,
		`(?m)^greeting-typo\s+1\s+FAIL\s+50%\s+done\s`,
		`4 runs: 3 passed, 1 failed, 0 ungraded \(pass rate 75%\)`,
		`"greeting-typo" fails on purpose`,
		`Records: .*\.suites`,
		`(?m)^Report:  go run \./cmd/lux report -html quickstart\.html \S*\.suites/\S+ `,
		`(?m)^Browse:  go run \./cmd/lux view -serve -runs-root \S+ `,
	} {
		assert.Regexp(t, regexp.MustCompile(re), text)
	}

	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1)
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	assert.Equal(t, record.SuiteFailed, s.Manifest.Status, "a suite with a failing case has failed")
	color := s.RunDir(1)
	run, err := record.ReadRun(color, record.ReadOptions{Events: true})
	require.NoError(t, err)
	assert.Equal(t, "favorite-color", run.Metadata.CaseID)
	// The example agent speaks lux-jsonl: it is identified by its content
	// hash and is never run to ask for a version.
	cmd := run.Metadata.Provenance.Runtime.Commands[0]
	assert.Empty(t, cmd.Version)
	assert.Len(t, cmd.SHA256, 64)
	assert.Equal(t, "scripted", run.Metadata.Answerer.Name)
	var order []string
	for _, e := range run.Events {
		if e.Type == "interrupt" || e.Type == "responded" || e.Type == "done" {
			order = append(order, string(e.Type))
		}
	}
	assert.Equal(t, []string{"interrupt", "responded", "done"}, order)
	b, err := filepath.Glob(filepath.Join(color, record.ArtifactsDir, "color.txt"))
	require.NoError(t, err)
	assert.Len(t, b, 1)

	// A second invocation records the same measurement identity.
	require.NoError(t, quickstart(context.Background(), &bytes.Buffer{}, root, 1))
	suites, err = record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	s2, err := record.ReadSuite(suites[1])
	require.NoError(t, err)
	assert.Equal(t, s.Summary.Samples[0].IdentityHash, s2.Summary.Samples[0].IdentityHash)
}
