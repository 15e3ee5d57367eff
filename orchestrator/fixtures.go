package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/internal/digest"
)

// fixtureEntry is one entry of a fixtures tree as it is hashed.
type fixtureEntry struct {
	Path string `json:"path"` // slash-separated, relative to the tree
	Type string `json:"type"` // "directory" or "file"
	Mode uint32 `json:"mode"` // permission bits
	Hash string `json:"hash,omitempty"`
}

// fixtureKindError is the problem with an entry of a fixtures tree that is
// neither a directory nor a regular file.
func fixtureKindError(path string, info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; fixtures hold only directories and regular files", path)
	}
	return fmt.Errorf("%s is not a regular file (%s); fixtures hold only directories and regular files", path, info.Mode().Type())
}

// checkFixtures walks the fixtures tree src as stageFixtures does, without
// copying it, and returns the first entry staging would refuse.
func checkFixtures(src string) error {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		if d.IsDir() || d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return fixtureKindError(path, info)
	})
}

// stageFixtures copies the directory src into dst (which exists) and
// returns the hash of the tree: digest.Value of its entries (path, type,
// permission bits, SHA-256 of each file's content) in path order. Only
// directories and regular files may appear; a symlink or any other kind
// of file is an error naming it. The content is hashed as it is copied, so
// the hash describes exactly what the agent was given. src itself may be a
// symlink to a directory (as Validate accepts it): the user named it.
func stageFixtures(src, dst string) (string, error) {
	named := src
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return "", fmt.Errorf("fixtures: %w", err)
	}
	fi, err := os.Lstat(src)
	if err != nil {
		return "", fmt.Errorf("fixtures: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("fixtures: %s is not a directory", named)
	}
	entries := []fixtureEntry{}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == src {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		perm := info.Mode().Perm()
		e := fixtureEntry{Path: filepath.ToSlash(rel), Mode: uint32(perm)}
		switch {
		case info.IsDir():
			e.Type = "directory"
			if err := os.Mkdir(target, perm|0o700); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			e.Type = "file"
			if e.Hash, err = copyFile(path, target, perm); err != nil {
				return err
			}
		default:
			return fixtureKindError(path, info)
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("fixtures: %w", err)
	}
	h, err := digest.Value(entries)
	if err != nil {
		return "", fmt.Errorf("fixtures: %w", err)
	}
	return h, nil
}

func copyFile(src, dst string, perm fs.FileMode) (string, error) {
	in, err := os.OpenFile(src, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s changed while staging", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o200)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && perm&0o200 == 0 {
		err = os.Chmod(dst, perm)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
