package safefs_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux/internal/safefs"
)

// FuzzPaths checks, for any path, that Clean never lets a path climb out
// of the root, and that reading or walking never reaches the secret file
// next to the root, nor anything through a symlink.
func FuzzPaths(f *testing.F) {
	base := f.TempDir()
	root := filepath.Join(base, "ws")
	for _, d := range []string{"dir/sub", "dir/.dot"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	write("secret", "SECRET")
	write("ws/a.txt", "a")
	write("ws/dir/sub/b.txt", "b")
	for link, target := range map[string]string{
		"ws/up": "..", "ws/abs": base, "ws/dir/secret": "../../secret", "ws/dir/self": ".", "ws/loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			f.Fatal(err)
		}
	}
	r := safefs.Root{Dir: root, Name: "workspace"}
	for _, s := range []string{"", ".", "a.txt", "up/secret", "abs/secret", "dir/secret", "dir/self/sub/b.txt", "loop",
		"dir/../a.txt", "dir/../../secret", "../secret", "/etc/passwd", "a.txt/", "dir//sub/./b.txt", "a\x00", `..\secret`, "dir/sub/../../../secret"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if c, err := safefs.Clean(rel); err == nil {
			if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) || path.Clean(c) != c {
				t.Fatalf("Clean(%q) = %q", rel, c)
			}
		}
		if full, _, err := r.Resolve(rel); err == nil {
			if full != root && !strings.HasPrefix(full, root+string(filepath.Separator)) {
				t.Fatalf("Resolve(%q) = %q, outside %q", rel, full, root)
			}
		}
		if data, err := r.ReadFile(rel, 1<<20); err == nil && string(data) == "SECRET" {
			t.Fatalf("ReadFile(%q) read the secret", rel)
		}
		_ = r.WalkFiles(rel, func(p string, info fs.FileInfo) error {
			if strings.Contains(p, "..") || strings.HasPrefix(p, "/") {
				t.Fatalf("WalkFiles(%q) reported %q", rel, p)
			}
			if info.Mode()&fs.ModeSymlink == 0 && strings.HasSuffix(p, "/secret") {
				t.Fatalf("WalkFiles(%q) followed a link to %q", rel, p)
			}
			return nil
		})
	})
}
