package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/record"
)

// Kind is what a record directory holds.
type Kind string

// The kinds of record directory.
const (
	KindRun   Kind = "run"
	KindSuite Kind = "suite"
)

// DirKind says whether dir is a run directory (it has run.json) or a
// suite directory (it has suite.json). Any other path is an error naming
// it and wrapping ErrNotRecord (or the fs error when it does not exist).
func DirKind(dir string) (Kind, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("compare: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s is a file, not a directory", ErrNotRecord, dir)
	}
	has := func(name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil || !errors.Is(err, fs.ErrNotExist)
	}
	switch {
	case has(record.MetadataFile):
		return KindRun, nil
	case has(record.SuiteFile):
		return KindSuite, nil
	}
	return "", fmt.Errorf("%w: %s has neither %s nor %s", ErrNotRecord, dir, record.MetadataFile, record.SuiteFile)
}
