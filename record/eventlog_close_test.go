package record

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An event appended after the log is closed is not silently lost: Append
// says so, and the file keeps what it had.
func TestEventLogAppendAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), EventsFile)
	log, err := CreateEventLog(path, LogOptions{})
	require.NoError(t, err)
	require.NoError(t, log.Append(progress(1, "one")))
	require.NoError(t, log.Close())
	err = log.Append(progress(2, "two"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrClosed), err.Error())
	assert.Contains(t, err.Error(), path)
	events, err := ReadEvents(path)
	require.NoError(t, err)
	assert.Len(t, events, 1)

	// The stderr log, written by the agent's own goroutines, takes late
	// writes without error and without reopening its file.
	spath := filepath.Join(t.TempDir(), StderrFile)
	s := NewStderrLog(spath, 0)
	_, err = s.Write([]byte("before\n"))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	n, err := s.Write([]byte("after\n"))
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	b, err := os.ReadFile(spath)
	require.NoError(t, err)
	assert.Equal(t, "before\n", string(b))
}
