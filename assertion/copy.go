package assertion

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safefs"
)

// Caps of the disposable copy a command assertion runs on: the same bounds
// as artifact collection's largest accepted file count and its hashing cap
// of bytes. A workspace over either is not copied and the assertion is an
// error (no verdict), naming the cap.
const (
	MaxCopyFiles       = 250_000
	MaxCopyBytes int64 = 1 << 30
)

// commandCopy makes the directory a command runs in: a copy of root, made
// for this command alone (removed by release) or, with share set, shared by
// the command assertions of the run that name the same share (made once,
// by the first of them, and removed with the run's grading scratch).
func commandCopy(run *lux.Run, root safefs.Root, in, share string) (dir string, release func(), err error) {
	scratch, cleanup := run.Scratch, func() {}
	if scratch == "" {
		// No scratch from the grader: one of our own, for this command.
		tmp, err := os.MkdirTemp("", "lux-grade-")
		if err != nil {
			return "", nil, err
		}
		scratch, cleanup = tmp, func() { removeAll(tmp) }
	}
	if share != "" && run.Scratch != "" {
		sum := sha256.Sum256([]byte(share))
		dir = filepath.Join(scratch, "share-"+in+"-"+hex.EncodeToString(sum[:8]))
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			return dir, cleanup, nil
		}
		if err := copyTree(root, dir); err != nil {
			removeAll(dir)
			return "", nil, err
		}
		return dir, cleanup, nil
	}
	parent, err := os.MkdirTemp(scratch, "command-")
	if err != nil {
		cleanup()
		return "", nil, err
	}
	dir = filepath.Join(parent, filepath.Base(root.Dir))
	if err := copyTree(root, dir); err != nil {
		removeAll(parent)
		cleanup()
		return "", nil, err
	}
	return dir, func() { removeAll(parent); cleanup() }, nil
}

// removeAll removes dir, first making its directories writable again (a
// command may have taken the write bit away).
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// copyTree copies the tree of root into dst, which must not exist:
// directories, regular files (by content, never by hard link, so the copy
// can be changed without changing root; the system may share the blocks
// copy-on-write where the file system can, through copy_file_range) and
// symbolic links as links (never followed). Other kinds of files are left
// out. Over MaxCopyFiles entries or MaxCopyBytes bytes is an error.
func copyTree(root safefs.Root, dst string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	src, err := os.OpenRoot(root.Dir)
	if err != nil {
		return fmt.Errorf("copy the %s: %w", root.Name, err)
	}
	defer src.Close()
	var files int
	var bytes int64
	err = root.WalkFiles(".", func(rel string, info fs.FileInfo) error {
		files++
		if files > MaxCopyFiles {
			return fmt.Errorf("the %s holds more than %d entries, the cap of a grading copy", root.Name, MaxCopyFiles)
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		switch mode := info.Mode(); {
		case mode.IsDir():
			return os.Mkdir(target, mode.Perm()|0o700)
		case mode&fs.ModeSymlink != 0:
			link, err := src.Readlink(filepath.FromSlash(rel))
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case mode.IsRegular():
			bytes += info.Size()
			if bytes > MaxCopyBytes {
				return fmt.Errorf("the %s holds more than %d bytes, the cap of a grading copy", root.Name, MaxCopyBytes)
			}
			return copyRegular(src, rel, info, target)
		}
		return nil // sockets, pipes, devices
	})
	if err != nil {
		return fmt.Errorf("copy the %s to run the command on: %w", root.Name, err)
	}
	return nil
}

// copyRegular copies the regular file rel of src, which must still be the
// file walked (info), to target.
func copyRegular(src *os.Root, rel string, info fs.FileInfo, target string) error {
	in, err := src.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|copyFlags, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return err
	} else if !os.SameFile(fi, info) {
		return fmt.Errorf("%s changed while it was copied", rel)
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, info.Size()))
	return errors.Join(err, out.Close())
}
