package report

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/internal/safefs"
	"github.com/luxeval/lux/record"
)

// FileDiff is one file of two runs' workspaces that differs: added,
// removed or changed, with a unified diff of a text file and sizes and
// hashes of every file.
type FileDiff struct {
	Path         string
	Status       string // added, removed, changed
	SizeA, SizeB string // "" on the side without it
	HashA, HashB string // SHA-256 as artifacts.json records it
	Diff         string // unified diff of a text file
	Binary       bool
	Note         string // why there is no diff, or that it is cut
}

// Bounds of a workspace diff.
const (
	maxDiffFiles  = 50      // files listed
	maxDiffLines  = 400     // lines of one diff
	maxDiffSource = 1 << 18 // bytes read of each side of one file
)

// workspaceDiff lists the files added, removed and changed between the
// artifacts of a and b (by path, and SHA-256 as recorded, or size when a
// file was not hashed), with a unified diff of each changed or added text
// file, read through safefs.
func workspaceDiff(a, b *record.Run, o Options) ([]FileDiff, string) {
	byPath := func(list []lux.Artifact) map[string]lux.Artifact {
		m := make(map[string]lux.Artifact, len(list))
		for _, x := range list {
			m[x.Path] = x
		}
		return m
	}
	pa, pb := byPath(a.Artifacts), byPath(b.Artifacts)
	var paths []string
	for p := range pa {
		paths = append(paths, p)
	}
	for p := range pb {
		if _, ok := pa[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	ra := safefs.Root{Dir: filepath.Join(a.Dir, record.ArtifactsDir), Name: "workspace of A"}
	rb := safefs.Root{Dir: filepath.Join(b.Dir, record.ArtifactsDir), Name: "workspace of B"}
	var out []FileDiff
	same, left := 0, 0
	for _, p := range paths {
		x, inA := pa[p]
		y, inB := pb[p]
		d := FileDiff{Path: p}
		switch {
		case !inA:
			d.Status = "added"
		case !inB:
			d.Status = "removed"
		case x.SHA256 != "" && x.SHA256 == y.SHA256, x.SHA256 == "" && y.SHA256 == "" && x.Size == y.Size && sameBytes(ra, rb, p):
			same++
			continue
		default:
			d.Status = "changed"
		}
		if len(out) == maxDiffFiles {
			left++
			continue
		}
		if inA {
			d.SizeA, d.HashA = bytesText(x.Size), hashText(x)
		}
		if inB {
			d.SizeB, d.HashB = bytesText(y.Size), hashText(y)
		}
		fileDiff(&d, ra, rb, inA, inB)
		out = append(out, d)
	}
	note := fmt.Sprintf("%d %s the same on both sides", same, plural(same, "file is", "files are"))
	if len(paths) == 0 {
		note = "neither run collected artifacts"
	}
	if left > 0 {
		note += fmt.Sprintf("; %d more differing files are not listed", left)
	}
	return out, note
}

func hashText(a lux.Artifact) string {
	if a.SHA256 == "" {
		return "no SHA-256: " + cmpOr(a.NotHashed, "none recorded")
	}
	return "SHA-256 " + a.SHA256
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sameBytes compares a file unhashed on both sides by its content.
func sameBytes(ra, rb safefs.Root, p string) bool {
	x, errA := ra.ReadFile(p, maxDiffSource)
	y, errB := rb.ReadFile(p, maxDiffSource)
	return errA == nil && errB == nil && string(x) == string(y)
}

// fileDiff fills d's diff: the unified diff of two texts (an absent side
// is empty), or why there is none.
func fileDiff(d *FileDiff, ra, rb safefs.Root, inA, inB bool) {
	read := func(r safefs.Root, in bool) (string, bool, string) {
		if !in {
			return "", true, ""
		}
		data, err := r.ReadFile(d.Path, maxDiffSource)
		if err != nil {
			return "", false, "no diff: " + previewProblem(err)
		}
		if !isText(data) {
			d.Binary = true
			return "", false, "binary: compare the sizes and hashes"
		}
		return string(data), true, ""
	}
	x, okA, noteA := read(ra, inA)
	y, okB, noteB := read(rb, inB)
	if !okA || !okB {
		d.Note = cmpOr(noteA, noteB)
		return
	}
	diff, more := compare.UnifiedDiff(d.Path, plain(x), plain(y), maxDiffLines)
	d.Diff = diff
	if more > 0 {
		d.Note = fmt.Sprintf("the diff is cut: %d more lines", more)
	}
}
