package labels

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// Upsert adds l to the dataset file at path, or replaces the label of the
// same id, holding an exclusive lock on path+".lock" from the read to the
// atomic replacement of the file, so that concurrent annotators (threads
// or processes) never lose each other's labels. A missing file is created.
//
// An id that already labels another run (another Run path or RunID) is
// refused with ErrRelabel: choose another id, or remove the old label by
// hand. l is validated first; the dataset as read must be valid too.
// replaced reports whether a label of the same id was there before.
func Upsert(path string, l Label) (replaced bool, err error) {
	if err := l.Validate(); err != nil {
		return false, &invalidError{name: "label " + l.ID, problems: flatten(err)}
	}
	unlock, err := lock(path + ".lock")
	if err != nil {
		return false, fmt.Errorf("labels: lock %s.lock: %w", path, err)
	}
	defer unlock()
	d := &Dataset{SchemaVersion: SchemaVersion, Labels: []Label{}}
	switch got, err := Load(path); {
	case err == nil:
		d = got
	case errors.Is(err, fs.ErrNotExist):
	default:
		return false, err
	}
	if old := d.Find(l.ID); old != nil {
		if old.Run != l.Run || old.RunID != l.RunID {
			return false, fmt.Errorf("%w: %q labels run %s (runId %s), not %s (runId %s); give this label another -id",
				ErrRelabel, l.ID, old.Run, old.RunID, l.Run, l.RunID)
		}
		*old = l
		replaced = true
	} else {
		i, _ := slices.BinarySearchFunc(d.Labels, l.ID, func(x Label, id string) int { return strings.Compare(x.ID, id) })
		d.Labels = slices.Insert(d.Labels, i, l)
	}
	if err := Save(path, d); err != nil {
		return false, err
	}
	return replaced, nil
}

// Save validates d and writes it to path atomically (temp file, fsync,
// rename). It does not lock: use Upsert to change a shared file.
func Save(path string, d *Dataset) error {
	if err := d.Validate(); err != nil {
		return &invalidError{name: path, problems: flatten(err)}
	}
	if err := record.WriteJSON(path, d); err != nil {
		return fmt.Errorf("labels: %w", err)
	}
	return nil
}

func flatten(err error) []error {
	var ie *invalidError
	if errors.As(err, &ie) {
		return ie.problems
	}
	return lux.ProblemsOf(err)
}

// lockFile opens (creating) the lock file at path.
func lockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
