package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// liveSlot is the directory under <root>/.live that one worker of a suite
// gives the agents of its runs, one run after the other: the workspace
// (made for each run, and moved into its record), the scratch directory,
// the driver's directory (StartInfo.TempDir) and grading's (lux.Run's
// Scratch). Between two runs the slot is emptied, so each run finds what
// fresh directories would hold, without the cost of making and removing
// four directories per run
// (removing a directory waits for the disk on a journaling file system).
// A nil slot is a run of its own: its directory is made for it and
// removed after it.
type liveSlot struct{ dir string }

const (
	workspaceName  = "workspace"
	scratchName    = "scratch"
	driverTempName = "driver"
	gradingName    = "grading"
)

// keptDirs are the directories of a live directory that a slot keeps,
// emptied, from one run to the next.
var keptDirs = []string{scratchName, driverTempName, gradingName}

// emptyDirAt reports whether path is a directory (not a link to one) that
// holds nothing: the agent, which ran before grading, may have put
// something there.
func emptyDirAt(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err != nil
}

// take returns the live directory for a run, holding the keptDirs, empty,
// and no workspace yet.
func (s *liveSlot) take(root string) (string, error) {
	if s != nil && s.dir != "" {
		dir := s.dir
		s.dir = ""
		return dir, nil
	}
	dir, err := record.ReserveLiveDir(root)
	if err != nil {
		return "", err
	}
	for _, d := range keptDirs {
		if err := os.Mkdir(filepath.Join(dir, d), record.DirPerm); err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// give takes back the live directory of a finished run, whose workspace
// has been moved into its record: it is emptied for the slot's next run,
// or removed when there is none or it cannot be emptied.
func (s *liveSlot) give(dir string) {
	if s == nil || !empty(dir) || !ownedHere(dir) {
		_ = os.RemoveAll(dir)
		return
	}
	s.dir = dir
}

// release removes the slot's directory once its worker is done.
func (s *liveSlot) release() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// owner is this process as the owner of its live directories.
var owner = sync.OnceValue(record.CurrentOwner)

// ownedHere reports whether a live directory still names this process as
// its owner (record.LiveOwnerFile), so that resuming a suite after this
// process is gone removes it.
func ownedHere(dir string) bool {
	var o record.Owner
	return record.ReadJSON(filepath.Join(dir, record.LiveOwnerFile), &o) == nil && o == *owner()
}

// empty removes from a run's live directory everything but the keptDirs,
// which it empties, and its owner file, and reports whether that is what
// it holds.
func empty(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	found := 0
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if slices.Contains(keptDirs, e.Name()) && e.IsDir() {
			found++
			var keep []string
			if e.Name() == scratchName {
				keep = sandbox.PrivateDirs()
			}
			if !emptyDir(p, keep) {
				return false
			}
			continue
		}
		if e.Name() == record.LiveOwnerFile && e.Type().IsRegular() {
			continue
		}
		if os.RemoveAll(p) != nil {
			return false
		}
	}
	return found == len(keptDirs)
}

// emptyDir removes everything in dir, which stays, but the directories
// named in keep (not links to one), which it empties.
func emptyDir(dir string, keep []string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && slices.Contains(keep, e.Name()) {
			if !emptyDir(p, nil) {
				return false
			}
			continue
		}
		if os.RemoveAll(p) != nil {
			return false
		}
	}
	return true
}
