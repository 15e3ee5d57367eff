package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safefs"
	"github.com/luxeval/lux/record"
)

// ArtifactDiff shows how a changed artifact changed: a short unified diff
// for a text file, or why there is none.
type ArtifactDiff struct {
	Path string `json:"path"`
	// Diff is the unified diff, "--- a/PATH", "+++ b/PATH", then hunks
	// with three lines of context, at most 40 lines; MoreLines counts the
	// lines cut (Truncated is then true).
	Diff      string `json:"diff,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	MoreLines int    `json:"moreLines,omitempty"`
	// Binary is true for a file that is not UTF-8 text or holds a NUL byte.
	Binary bool `json:"binary,omitempty"`
	// Note says why there is no diff otherwise (too large, unreadable).
	Note string `json:"note,omitempty"`
}

// The bounds of artifact diffs.
const (
	maxDiffLines = 40      // lines of one diff, headers included
	maxDiffFiles = 10      // changed artifacts diffed per comparison
	maxDiffBytes = 1 << 18 // bytes read of each side of a file
)

// artifactDiffs diffs the first maxDiffFiles changed artifacts of two
// runs whose directories (dirA and dirB) hold their artifacts; nothing
// when either does not.
func artifactDiffs(dirA, dirB string, artsA, artsB []lux.Artifact, changed []string) []ArtifactDiff {
	out := []ArtifactDiff{}
	if dirA == "" || dirB == "" {
		return out
	}
	ra := safefs.Root{Dir: filepath.Join(dirA, record.ArtifactsDir), Name: "artifacts of A"}
	rb := safefs.Root{Dir: filepath.Join(dirB, record.ArtifactsDir), Name: "artifacts of B"}
	for _, r := range []safefs.Root{ra, rb} {
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() {
			return out // a record without its artifacts (copied, or built in memory)
		}
	}
	for i, p := range changed {
		if i == maxDiffFiles {
			break
		}
		out = append(out, artifactDiff(ra, rb, p, hashOf(artsA, p), hashOf(artsB, p)))
	}
	return out
}

// hashOf returns the recorded SHA-256 of the artifact at path ("" when
// none was recorded).
func hashOf(arts []lux.Artifact, path string) string {
	for _, a := range arts {
		if a.Path == path {
			return a.SHA256
		}
	}
	return ""
}

// changedSince reports content whose SHA-256 is not the one recorded.
func changedSince(data []byte, recorded string) bool {
	if recorded == "" || len(data) > maxDiffBytes {
		return false
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) != recorded
}

func artifactDiff(ra, rb safefs.Root, p, hashA, hashB string) ArtifactDiff {
	d := ArtifactDiff{Path: p}
	a, errA := ra.ReadFile(p, maxDiffBytes+1)
	b, errB := rb.ReadFile(p, maxDiffBytes+1)
	switch {
	case errA == nil && changedSince(a, hashA):
		d.Note = "no diff: A's file changed since it was recorded (its SHA-256 is not the one in artifacts.json)"
	case errB == nil && changedSince(b, hashB):
		d.Note = "no diff: B's file changed since it was recorded (its SHA-256 is not the one in artifacts.json)"
	case errA != nil:
		d.Note = "no diff: " + errA.Error()
	case errB != nil:
		d.Note = "no diff: " + errB.Error()
	case len(a) > maxDiffBytes || len(b) > maxDiffBytes:
		d.Note = fmt.Sprintf("no diff: larger than %d KiB", maxDiffBytes>>10)
	case !isText(a) || !isText(b):
		d.Binary = true
	default:
		d.Diff, d.MoreLines = unifiedDiff(p, string(a), string(b), maxDiffLines)
		d.Truncated = d.MoreLines > 0
	}
	return d
}

// isText reports UTF-8 without NUL bytes.
func isText(b []byte) bool { return utf8.Valid(b) && !bytes.Contains(b, []byte{0}) }
