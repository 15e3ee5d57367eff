package safefs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux/internal/safefs"
)

// tree builds a workspace:
//
//	a.txt            "hello"
//	dir/b.txt        "inside"
//	dir/sub/c.txt    "deep"
//	link.txt      -> a.txt
//	linkdir       -> dir
//	outside       -> ../secret.txt (outside the root)
//	fifo             a named pipe
func tree(t *testing.T) safefs.Root {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "dir", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("inside"), 0o644))
	must(os.WriteFile(filepath.Join(root, "dir", "sub", "c.txt"), []byte("deep"), 0o644))
	must(os.Symlink("a.txt", filepath.Join(root, "link.txt")))
	must(os.Symlink("dir", filepath.Join(root, "linkdir")))
	must(os.Symlink("../secret.txt", filepath.Join(root, "outside")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	return safefs.Root{Dir: root, Name: "workspace"}
}

func TestReadFile(t *testing.T) {
	r := tree(t)
	tests := []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr string
		is      error
	}{
		{name: "plain", path: "a.txt", want: "hello"},
		{name: "nested", path: "dir/sub/c.txt", want: "deep"},
		{name: "cleaned", path: "./dir/../a.txt", want: "hello"},
		{name: "at the limit", path: "a.txt", limit: 5, want: "hello"},
		{name: "over the limit", path: "a.txt", limit: 4, wantErr: `path "a.txt" is 5 bytes, over the limit of 4`, is: safefs.ErrTooLarge},
		{name: "escape", path: "../x", wantErr: `path "../x" escapes the workspace`, is: safefs.ErrUnsafePath},
		{name: "escape after clean", path: "dir/../../secret.txt", wantErr: `path "dir/../../secret.txt" escapes the workspace`, is: safefs.ErrUnsafePath},
		{name: "absolute", path: "/etc/passwd", wantErr: `path "/etc/passwd" is absolute`, is: safefs.ErrUnsafePath},
		{name: "nul", path: "a\x00b", wantErr: `path "a\x00b" contains a NUL byte`, is: safefs.ErrUnsafePath},
		{name: "final symlink", path: "link.txt", wantErr: `path "link.txt" goes through a symlink`, is: safefs.ErrSymlink},
		{name: "symlink leaving the root", path: "outside", wantErr: `path "outside" goes through a symlink`, is: safefs.ErrSymlink},
		{name: "symlinked directory", path: "linkdir/b.txt", wantErr: `path "linkdir/b.txt" goes through a symlink ("linkdir")`, is: safefs.ErrSymlink},
		{name: "missing", path: "nope.txt", wantErr: `path "nope.txt" does not exist`, is: fs.ErrNotExist},
		{name: "missing parent", path: "nodir/x.txt", wantErr: `path "nodir/x.txt" does not exist (no "nodir")`, is: fs.ErrNotExist},
		{name: "file as parent", path: "a.txt/x", wantErr: `path "a.txt/x" goes through "a.txt", which is not a directory`, is: safefs.ErrNotDir},
		{name: "directory", path: "dir", wantErr: `path "dir" is not a regular file (a directory)`, is: safefs.ErrNotRegular},
		{name: "fifo", path: "fifo", wantErr: `path "fifo" is not a regular file (a named pipe)`, is: safefs.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.ReadFile(tt.path, tt.limit)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ReadFile(%q) = %q, want error %q", tt.path, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("error = %q, want %q", err, tt.wantErr)
				}
				if !errors.Is(err, tt.is) {
					t.Errorf("error %v is not %v", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadFile(%q): %v", tt.path, err)
			}
			if string(got) != tt.want {
				t.Errorf("ReadFile(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestResolveRootProblems(t *testing.T) {
	_, err := safefs.Root{Name: "workspace"}.ReadFile("a.txt", 0)
	if err == nil || err.Error() != `path "a.txt" has no workspace to be resolved in` {
		t.Errorf("empty root: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	_, err = safefs.Root{Dir: missing, Name: "run directory"}.Stat("a.txt")
	if err == nil || !strings.Contains(err.Error(), "the run directory: no such file or directory") {
		t.Errorf("missing root: %v", err)
	}
	// The root itself may be reached through a link: it is trusted.
	r := tree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(r.Dir, alias); err != nil {
		t.Fatal(err)
	}
	got, err := safefs.Root{Dir: alias}.ReadFile("a.txt", 0)
	if err != nil || string(got) != "hello" {
		t.Errorf("root via link: %q, %v", got, err)
	}
	if _, err := r.DirPath("a.txt"); !errors.Is(err, safefs.ErrNotDir) {
		t.Errorf("DirPath(file) = %v, want ErrNotDir", err)
	}
	if p, err := r.DirPath("."); err != nil || p != r.Dir {
		t.Errorf("DirPath(.) = %q, %v", p, err)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "a//b/": "a/b", "a/./b/../c": "a/c"} {
		got, err := safefs.Clean(in)
		if err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := safefs.Clean("a/../../b"); err == nil || err.Error() != `path "a/../../b" escapes the root` {
		t.Errorf("Clean escape: %v", err)
	}
}

func TestWalkFiles(t *testing.T) {
	r := tree(t)
	var got []string
	err := r.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		mark := ""
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			mark = "@"
		case info.IsDir():
			mark = "/"
		case !info.Mode().IsRegular():
			mark = "|"
		}
		got = append(got, rel+mark)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt", "dir/", "dir/b.txt", "dir/sub/", "dir/sub/c.txt", "fifo|", "link.txt@", "linkdir@", "outside@"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WalkFiles (-want +got):\n%s", diff)
	}
	if err := r.WalkFiles("linkdir", func(string, fs.FileInfo) error { return nil }); !errors.Is(err, safefs.ErrSymlink) {
		t.Errorf("WalkFiles(linkdir) = %v, want ErrSymlink", err)
	}
	got = nil
	_ = r.WalkFiles("dir", func(rel string, info fs.FileInfo) error {
		if info.IsDir() {
			return safefs.SkipDir
		}
		got = append(got, rel)
		return nil
	})
	if diff := cmp.Diff([]string{"dir/b.txt"}, got); diff != "" {
		t.Errorf("WalkFiles(dir) with SkipDir (-want +got):\n%s", diff)
	}
}

func TestReadFileCatchesGrowth(t *testing.T) {
	// Files under /proc report size 0 yet have content: exactly a file that
	// grows between inspection and reading.
	r := safefs.Root{Dir: "/proc/self", Name: "proc"}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc:", err)
	}
	_, err := r.ReadFile("status", 8)
	if !errors.Is(err, safefs.ErrTooLarge) || err.Error() != `path "status" grew past the limit of 8 bytes while being read` {
		t.Errorf("ReadFile(status, 8) = %v, want growth refused", err)
	}
}
