package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/luxeval/lux"
)

// DefaultMaxArtifactFiles is how many files WalkArtifacts accepts when
// given no limit.
const DefaultMaxArtifactFiles = 500

// WalkArtifacts lists the files an agent left under root: regular files
// only, with slash-separated paths relative to root, sorted, each with its
// size and SHA-256. Symbolic links are skipped, never followed (root itself
// may be one); directories whose names start with a dot, and node_modules
// directories, are skipped, and so are entries that disappear while the
// walk goes on; a directory swapped for a symlink during the walk never
// leads to a file outside root. More than max files (DefaultMaxArtifactFiles when max <= 0)
// is an error.
func WalkArtifacts(root string, max int) ([]lux.Artifact, error) {
	if max <= 0 {
		max = DefaultMaxArtifactFiles
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("driver: artifacts: %w", err)
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("driver: artifacts: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("driver: artifacts: %s is not a directory", root)
	}
	var out []lux.Artifact
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != root && gone(err) {
				return nil // removed or replaced while the walk went on
			}
			return err
		}
		if path == root {
			return nil
		}
		switch {
		case d.IsDir():
			if name := d.Name(); name[0] == '.' || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return nil // symlinks, sockets, devices, pipes
		}
		if len(out) == max {
			return fmt.Errorf("artifact collection exceeds %d files", max)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		size, sum, err := hashRegular(root, path)
		if err != nil {
			return err
		}
		if size < 0 {
			return nil // replaced by something other than a regular file
		}
		out = append(out, lux.Artifact{Path: filepath.ToSlash(rel), Size: size, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("driver: artifacts: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// hashRegular opens path without following a symlink and hashes it if it
// is a regular file inside root; size is -1 when it is not (a directory on
// the way was swapped for a symlink during the walk, say).
func hashRegular(root, path string) (size int64, sum string, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if gone(err) {
			return -1, "", nil
		}
		return 0, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	if !info.Mode().IsRegular() || !inside(root, openedPath(f)) {
		return -1, "", nil
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// openedPath is where the open file f really is: the system's record of
// the descriptor where it keeps one (Linux), else f's name with every
// symlink resolved.
func openedPath(f *os.File) string {
	var p string
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { p, _ = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)) })
	}
	if p == "" {
		p, _ = filepath.EvalSymlinks(f.Name())
	}
	return p
}

// inside reports whether path is root or under it.
func inside(root, path string) bool {
	return path != "" && (path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)))
}

// gone reports an entry that disappeared, or stopped being a directory,
// between being listed and being read.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// HashFile is the SHA-256 (hex) of the file at path.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("driver: hash: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("driver: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
