package record

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Processes opening a runs root's key at once share one key, kept 0600 in
// a 0700 directory.
func TestSealKeyIsCreatedOnce(t *testing.T) {
	root := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			k, err := OpenSealKey(root)
			if err == nil {
				ids[i] = k.ID
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		require.NotEmpty(t, id)
		assert.Equal(t, ids[0], id)
	}
	fi, err := os.Stat(SealKeyPath(root))
	require.NoError(t, err)
	assert.Equal(t, FilePerm, fi.Mode().Perm())
	di, err := os.Stat(SealKeyDirOf(root))
	require.NoError(t, err)
	assert.Equal(t, DirPerm, di.Mode().Perm())
}

// A crash at any point of WriteSealed leaves a record that verifies: the
// old content under the pending seal, the new one before the final seal.
// Content that is neither is refused.
func TestWriteSealedSurvivesACrash(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, SuitesDir, "2020-01-01T00-00-00-000Z")
	require.NoError(t, os.MkdirAll(dir, DirPerm))
	key, err := OpenSealKey(root)
	require.NoError(t, err)
	w := Writer{}
	require.NoError(t, w.WriteSealed(dir, "suite", key, SuiteFile, []byte(`{"v":1}`)))
	state, err := VerifySeal(dir)
	require.NoError(t, err)
	require.Equal(t, SealVerified, state)

	// Crash after the pending seal, before the file: the old content verifies.
	base, err := w.sealBase(dir, "suite", key, SuiteFile)
	require.NoError(t, err)
	next := []byte(`{"v":2}`)
	sum := sha256.Sum256(next)
	require.NoError(t, w.writeSeal(dir, key, &Seal{Kind: "suite", Files: base, Pending: map[string]string{SuiteFile: hex.EncodeToString(sum[:])}}))
	_, err = VerifySeal(dir)
	require.NoError(t, err, "the old content")
	// Crash after the file, before the final seal: the new content verifies.
	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteFile), next, 0o600))
	_, err = VerifySeal(dir)
	require.NoError(t, err, "the new content")
	// Anything else does not.
	require.NoError(t, os.WriteFile(filepath.Join(dir, SuiteFile), []byte(`{"v":3}`), 0o600))
	_, err = VerifySeal(dir)
	require.ErrorIs(t, err, ErrSealBroken)
	require.ErrorIs(t, err, ErrEvidenceChanged)
	// The next write starts from the seal, not from what the file holds.
	require.NoError(t, w.WriteSealed(dir, "suite", key, SuiteSummaryFile, []byte(`{}`)))
	_, err = VerifySeal(dir)
	require.ErrorIs(t, err, ErrSealBroken, "a file changed behind the harness's back is not blessed by the next seal")
}
