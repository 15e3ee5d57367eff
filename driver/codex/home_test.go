package codex

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The run's CODEX_HOME never keeps what holds secrets: the copied
// auth.json, and the shell snapshots a CLI stopped before it tidies up
// leaves behind (they export the agent's whole environment).
func TestCleanHomeDropsSecrets(t *testing.T) {
	for _, keep := range []bool{false, true} {
		home := t.TempDir()
		for _, f := range []string{"config.toml", "auth.json", "shell_snapshots/s.sh", "logs_2.sqlite"} {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(home, f), []byte("export OPENAI_API_KEY=sk-x\n"), 0o600))
		}
		s := &session{home: home, keepHome: keep}
		s.cleanHome()
		var left []string
		require.NoError(t, filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(home, p)
				left = append(left, rel)
			}
			return err
		}))
		sort.Strings(left)
		want := []string{"config.toml"}
		if keep {
			want = []string{"config.toml", "logs_2.sqlite"}
		}
		assert.Equal(t, want, left, "keepHome=%v", keep)
	}
}
