package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/safefs"
)

// A diff never shows content changed after the run as its evidence.
func TestArtifactDiffRefusesContentChangedSinceRecorded(t *testing.T) {
	da, db := t.TempDir(), t.TempDir()
	write := func(dir, s string) string {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:])
	}
	ha, hb := write(da, "one\n"), write(db, "two\n")
	ra, rb := safefs.Root{Dir: da, Name: "A"}, safefs.Root{Dir: db, Name: "B"}
	if d := artifactDiff(ra, rb, "a.txt", ha, hb); d.Diff == "" || d.Note != "" {
		t.Fatalf("as recorded: %+v", d)
	}
	write(db, "forged\n")
	d := artifactDiff(ra, rb, "a.txt", ha, hb)
	if d.Diff != "" || !strings.Contains(d.Note, "B's file changed since it was recorded") {
		t.Errorf("changed: %+v", d)
	}
}
