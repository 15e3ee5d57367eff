package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux/record"
)

// An artifact that cannot be previewed says why, without repeating the
// path its row already shows.
func TestArtifactWithoutPreviewSaysWhy(t *testing.T) {
	dir, _, _ := writeRun(t, t.TempDir(), "", fixtureRun{caseID: "a", artifacts: map[string]string{"link.txt": "hi", "plain.txt": "hello"}},
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	link := filepath.Join(dir, record.ArtifactsDir, "link.txt")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	p, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range p.Artifacts {
		got[a.Path] = a.Note + a.Preview
	}
	want := map[string]string{"link.txt": "no preview: goes through a symlink", "plain.txt": "hello"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("artifact rows (-want +got):\n%s", d)
	}
}
