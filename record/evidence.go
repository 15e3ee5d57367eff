package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
)

// LiveDir holds, under the runs root, what a run in progress gives its
// agent: the workspace (moved to the run directory's artifacts/ once the
// agent is stopped), a scratch directory and the driver's own files (the
// prompt file), both removed. The agent is never told where the record is.
// Each run's directory names its owner (LiveOwnerFile), so that what a
// killed harness left behind is removed by SweepLive.
const LiveDir = ".live"

// LiveOwnerFile, in a run's live directory, is the Owner of the process
// running it.
const LiveOwnerFile = "owner.json"

// ReserveLiveDir creates a fresh directory under <root>/.live for one run,
// holding LiveOwnerFile.
func ReserveLiveDir(root string) (string, error) {
	parent := filepath.Join(root, LiveDir)
	if err := os.MkdirAll(parent, DirPerm); err != nil {
		return "", fmt.Errorf("record: create %s: %w", parent, err)
	}
	dir, err := os.MkdirTemp(parent, "run-")
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	if err := (Writer{}).WriteJSON(filepath.Join(dir, LiveOwnerFile), CurrentOwner()); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("record: %w", err)
	}
	return dir, nil
}

// SweepLive removes the live directories under root whose owner is gone
// (a harness killed, or its machine stopped, while its runs ran): their
// workspaces, scratch directories and prompt files. A directory whose
// owner may be alive, or that names none, is left alone. It returns how
// many it removed.
func SweepLive(root string) int {
	entries, err := os.ReadDir(filepath.Join(root, LiveDir))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		dir := filepath.Join(root, LiveDir, e.Name())
		var o Owner
		if !e.IsDir() || ReadJSON(filepath.Join(dir, LiveOwnerFile), &o) != nil || o.PID == 0 || o.Alive() {
			continue
		}
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// ErrEvidenceChanged reports a run whose evidence on disk is not what the
// harness recorded: events.jsonl, artifacts.json or a file under
// artifacts/ changed (or was added to) since. Such a record is not graded.
var ErrEvidenceChanged = errors.New("record: the run's evidence changed since it was recorded")

// NewEvidence fingerprints the evidence of a run being recorded: the event
// log's digest and the artifact list.
func NewEvidence(log *EventLog, artifacts []lux.Artifact) (*Evidence, error) {
	if artifacts == nil {
		artifacts = []lux.Artifact{}
	}
	h, err := digest.Value(artifacts)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	ev := &Evidence{ArtifactsHash: h}
	if log != nil {
		ev.EventsSHA256, ev.EventsBytes = log.Digest()
	}
	return ev, nil
}

// VerifyEvidence checks that the run's evidence on disk is what run.json's
// Evidence says was recorded: the bytes of events.jsonl, the artifact list
// of artifacts.json and the content of every hashed artifact (a file over
// the hashing caps is checked by size). A difference is an error wrapping
// ErrEvidenceChanged that names the file. verified is false, with no
// error, for a record made before evidence was fingerprinted.
func VerifyEvidence(ctx context.Context, r *Run) (verified bool, err error) {
	want := r.Metadata.Evidence
	if want == nil {
		return false, nil
	}
	changed := func(path, what string) error {
		return fmt.Errorf("%w: %s: %s", ErrEvidenceChanged, path, what)
	}
	events := filepath.Join(r.Dir, EventsFile)
	if fi, err := os.Lstat(events); err != nil || !fi.Mode().IsRegular() {
		if want.EventsBytes > 0 || err == nil {
			return false, changed(events, "missing or not a regular file")
		}
	} else {
		n, sum, err := digest.File(ctx, events, want.EventsBytes)
		switch {
		case err != nil && n > want.EventsBytes:
			return false, changed(events, fmt.Sprintf("holds more than the %d bytes recorded", want.EventsBytes))
		case err != nil:
			return false, fmt.Errorf("record: verify %s: %w", events, err)
		case n != want.EventsBytes || sum != want.EventsSHA256:
			return false, changed(events, fmt.Sprintf("%d bytes with SHA-256 %s; %d bytes with %s were recorded", n, sum, want.EventsBytes, want.EventsSHA256))
		}
	}
	arts := r.Artifacts
	if arts == nil {
		arts = []lux.Artifact{}
	}
	if h, err := digest.Value(arts); err != nil {
		return false, fmt.Errorf("record: %w", err)
	} else if h != want.ArtifactsHash {
		return false, changed(filepath.Join(r.Dir, ArtifactsFile), "the artifact list is not the one recorded")
	}
	dir := filepath.Join(r.Dir, ArtifactsDir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		if len(arts) == 0 {
			if err := verifyTree(dir, want, arts); err != nil {
				return false, err
			}
			return true, nil
		}
		return false, changed(dir, err.Error())
	}
	defer root.Close()
	for _, a := range arts {
		path := filepath.Join(dir, filepath.FromSlash(a.Path))
		f, err := root.Open(filepath.FromSlash(a.Path))
		if err != nil {
			return false, changed(path, "cannot be opened: "+err.Error())
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != a.Size {
			f.Close()
			return false, changed(path, fmt.Sprintf("is not the regular file of %d bytes recorded", a.Size))
		}
		if a.SHA256 == "" {
			f.Close()
			continue // not hashed when recorded: its size is all there is to check
		}
		_, sum, err := digest.Reader(ctx, f, a.Size)
		f.Close()
		if err != nil {
			return false, fmt.Errorf("record: verify %s: %w", path, err)
		}
		if sum != a.SHA256 {
			return false, changed(path, fmt.Sprintf("SHA-256 %s; %s was recorded", sum, a.SHA256))
		}
	}
	if err := verifyTree(dir, want, arts); err != nil {
		return false, err
	}
	return true, nil
}

// verifyTree checks the recorded workspace's tree against its fingerprint
// and names, when it differs, the files not in the artifact list.
func verifyTree(dir string, want *Evidence, arts []lux.Artifact) error {
	if want.WorkspaceSHA256 == "" {
		return nil // recorded before the tree was fingerprinted
	}
	t, err := WorkspaceTree(dir)
	if err != nil {
		return err
	}
	if t.SHA256 == want.WorkspaceSHA256 && t.Entries == want.WorkspaceEntries {
		return nil
	}
	listed := make(map[string]bool, len(arts))
	for _, a := range arts {
		listed[a.Path] = true
	}
	var added []string
	for _, f := range t.Files {
		if !listed[f] {
			added = append(added, f)
		}
	}
	what := fmt.Sprintf("its file tree is not the one recorded (%d entries now, %d recorded)", t.Entries, want.WorkspaceEntries)
	if len(added) > 0 {
		if len(added) > 5 {
			added = append(added[:5], "...")
		}
		what += "; files not in " + ArtifactsFile + ": " + strings.Join(added, ", ")
	}
	return fmt.Errorf("%w: %s: %s", ErrEvidenceChanged, dir, what)
}
