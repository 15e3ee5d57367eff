package record_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

func TestCheckRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	assert.NoError(t, record.CheckRoot(filepath.Join(dir, "new", "runs")), "a missing root is created")
	err := record.CheckRoot(file)
	require.ErrorIs(t, err, record.ErrUnusableRoot)
	assert.Contains(t, err.Error(), file+" is not a directory")
	err = record.CheckRoot(filepath.Join(file, "runs"))
	require.ErrorIs(t, err, record.ErrUnusableRoot)
	assert.Contains(t, err.Error(), "cannot be created")
}
