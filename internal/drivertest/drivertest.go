// Package drivertest holds the checks that the tests of the built-in
// drivers of agent CLIs share, so each driver is held to the same
// standard by the same code.
package drivertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/modeltest"
)

// KeySent fails unless one of the requests srv received carried header
// with the value want: the key a config names by its variable reached the
// CLI and was sent.
func KeySent(t testing.TB, srv *modeltest.Server, header, want string) {
	t.Helper()
	for _, req := range srv.Requests() {
		if req.Header.Get(header) == want {
			return
		}
	}
	t.Errorf("the CLI never sent the key in %s", header)
}

// SecretStaysOut fails when a file of runDir (a run's record) holds
// secret (see NoSecretUnder), or when raw parsed by p, its
// controlled-experiment form or its experiment identity marshals to JSON
// holding it: a key given by the name of an environment variable reaches
// the agent and nothing the run leaves behind.
func SecretStaysOut(t testing.TB, p *lux.DriverPlugin, raw json.RawMessage, runDir, secret string) {
	t.Helper()
	NoSecretUnder(t, runDir, secret)
	cfg, err := p.Parse(raw)
	require.NoError(t, err)
	require.NotNil(t, p.Experiment, "%s has no experiment support", p.Name)
	prepared, err := p.Experiment.Prepare(cfg)
	require.NoError(t, err)
	id, err := p.Experiment.Identity(context.Background(), prepared, t.TempDir())
	require.NoError(t, err)
	for _, v := range []struct {
		what string
		v    any
	}{{"the parsed config", cfg}, {"the controlled config", prepared}, {"the identity", id}} {
		b, err := json.Marshal(v.v)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, "%s holds the key", v.what)
	}
}

// NoSecretUnder fails for every regular file under dir that holds secret,
// or its last ten characters (a CLI may keep only the end of a key, to
// recognise it later), and when dir holds no file at all. It returns the
// number of files it read.
func NoSecretUnder(t testing.TB, dir, secret string) (files int) {
	t.Helper()
	tail := secret[max(0, len(secret)-10):]
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		n++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		assert.False(t, strings.Contains(string(b), tail), "%s holds the key", path)
		return nil
	}))
	require.NotZero(t, n, "no file under %s", dir)
	return n
}

// Buffer is a bytes.Buffer safe for a writer and a reader in different
// goroutines: a driver's stderr copier and the test that reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
