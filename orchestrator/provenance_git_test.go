package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stray .git entry (an empty directory, a file that is no gitdir link)
// above a case does not make its directory the repository root: the case
// path stays absolute and no git state is claimed.
func TestSourceIgnoresStrayGitEntries(t *testing.T) {
	for name, make := range map[string]func(p string) error{
		"empty directory":  func(p string) error { return os.Mkdir(p, 0o755) },
		"unrelated file":   func(p string) error { return os.WriteFile(p, []byte("not git"), 0o644) },
		"directory no git": func(p string) error { return os.MkdirAll(filepath.Join(p, "HEAD"), 0o755) },
	} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			require.NoError(t, make(filepath.Join(top, ".git")))
			casePath := filepath.Join(top, "cases", "a.case.json")
			src := (&provenanceCache{repos: map[string]*onceValue[*record.GitInfo]{}}).source(context.Background(), casePath)
			require.NotNil(t, src)
			assert.Nil(t, src.Git)
			assert.Equal(t, "a.case.json", src.CasePath, "outside a repository, the file name")
		})
	}
}
