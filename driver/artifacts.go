package driver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
)

// DefaultMaxArtifactFiles is how many files WalkArtifacts accepts when
// given no limit.
const DefaultMaxArtifactFiles = 500

// Default caps of artifact hashing: a file larger than
// DefaultMaxArtifactFileBytes, or one that would take the bytes hashed in
// one collection past DefaultMaxArtifactBytes, is listed with its size and
// not hashed. DefaultCollectTimeout bounds one collection.
const (
	DefaultMaxArtifactFileBytes int64 = 256 << 20 // 256 MiB
	DefaultMaxArtifactBytes     int64 = 1 << 30   // 1 GiB
	DefaultCollectTimeout             = time.Minute
)

// ArtifactLimits bound an artifact collection. The zero value of each
// field means its default.
type ArtifactLimits struct {
	MaxFiles     int   // more files is an error; DefaultMaxArtifactFiles
	MaxFileBytes int64 // bytes hashed of one file; DefaultMaxArtifactFileBytes
	MaxBytes     int64 // bytes hashed in all; DefaultMaxArtifactBytes
}

func (l ArtifactLimits) withDefaults() ArtifactLimits {
	orDefault(&l.MaxFiles, DefaultMaxArtifactFiles)
	orDefault(&l.MaxFileBytes, DefaultMaxArtifactFileBytes)
	orDefault(&l.MaxBytes, DefaultMaxArtifactBytes)
	return l
}

// orDefault sets *v to def when it is zero or less: how every count, cap
// and duration of this package's options means "the default".
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// WalkArtifacts is CollectArtifacts with no deadline and the default
// hashing caps, max files (DefaultMaxArtifactFiles when max <= 0).
func WalkArtifacts(root string, max int) ([]lux.Artifact, error) {
	return CollectArtifacts(context.Background(), root, ArtifactLimits{MaxFiles: max})
}

// CollectArtifacts lists the files an agent left under root: regular files
// only, with slash-separated paths relative to root, sorted, each with its
// size and SHA-256. Symbolic links are skipped, never followed (root itself
// may be one); directories whose names start with a dot, and node_modules
// directories, are skipped, and so are entries that disappear while the
// walk goes on; a directory swapped for a symlink during the walk never
// leads to a file outside root. More than lim.MaxFiles files is an error.
//
// Hashing is bounded: a file over lim.MaxFileBytes, or one that would take
// the bytes hashed past lim.MaxBytes, is listed with its size and
// NotHashed saying why, and is not read. Once ctx ends (its deadline, say)
// the files not yet hashed are listed the same way, so a collection
// always ends in bounded time with every file named.
func CollectArtifacts(ctx context.Context, root string, lim ArtifactLimits) ([]lux.Artifact, error) {
	lim = lim.withDefaults()
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
	h := &hasher{ctx: ctx, lim: lim}
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
		if len(out) == lim.MaxFiles {
			return fmt.Errorf("artifact collection exceeds %d files", lim.MaxFiles)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		a, ok, err := h.hashRegular(root, path)
		if err != nil {
			return err
		}
		if !ok {
			return nil // replaced by something other than a regular file
		}
		a.Path = filepath.ToSlash(rel)
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("driver: artifacts: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// hasher hashes the files of one collection within its caps.
type hasher struct {
	ctx    context.Context
	lim    ArtifactLimits
	hashed int64 // bytes hashed so far
}

// hashRegular opens path without following a symlink and, if it is a
// regular file inside root, describes it, hashed when the caps and the
// context allow; ok is false when it is not (a directory on the way was
// swapped for a symlink during the walk, say).
func (h *hasher) hashRegular(root, path string) (a lux.Artifact, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if gone(err) {
			return a, false, nil
		}
		return a, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return a, false, err
	}
	if !info.Mode().IsRegular() || !inside(root, openedPath(f)) {
		return a, false, nil
	}
	a.Size = info.Size()
	switch {
	case h.ctx.Err() != nil:
		a.NotHashed = stoppedReason(h.ctx)
		return a, true, nil
	case a.Size > h.lim.MaxFileBytes:
		a.NotHashed = fmt.Sprintf("over the %d-byte per-file hashing cap", h.lim.MaxFileBytes)
		return a, true, nil
	case h.hashed+a.Size > h.lim.MaxBytes:
		a.NotHashed = fmt.Sprintf("over the %d-byte hashing cap of the collection", h.lim.MaxBytes)
		return a, true, nil
	}
	// The file may grow while it is read: never more than the room left.
	n, sum, err := digest.Reader(h.ctx, f, min(h.lim.MaxFileBytes, h.lim.MaxBytes-h.hashed))
	h.hashed += n
	switch {
	case h.ctx.Err() != nil:
		a.NotHashed = stoppedReason(h.ctx)
	case err != nil && n > a.Size:
		a.NotHashed = "grew past the hashing cap while it was read"
	case err != nil:
		return a, false, err
	default:
		a.Size, a.SHA256 = n, sum
	}
	return a, true, nil
}

func stoppedReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "collection ran out of time before hashing it"
	}
	return "collection was stopped before hashing it: " + context.Cause(ctx).Error()
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
	_, sum, err := digest.File(context.Background(), path, 0)
	if err != nil {
		return "", fmt.Errorf("driver: hash %s: %w", path, err)
	}
	return sum, nil
}
