package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/glob"
)

// Candidate is one version of the subject's mutable files: the baseline
// (the files as they are) or a variant. Hash is the content hash of Files.
type Candidate struct {
	SchemaVersion int               `json:"schemaVersion"`
	ID            string            `json:"id"`
	Name          string            `json:"name,omitempty"`
	ParentIDs     []string          `json:"parentIds"`
	Hash          string            `json:"hash"`
	Bytes         int64             `json:"bytes"`
	Files         map[string]string `json:"files"`
}

// seal sets Hash and Bytes from Files.
func (c *Candidate) seal() error {
	h, err := digest.Value(c.Files)
	if err != nil {
		return err
	}
	c.Hash, c.Bytes = h, 0
	for _, v := range c.Files {
		c.Bytes += int64(len(v))
	}
	return nil
}

// verify checks Hash and Bytes against Files.
func (c *Candidate) verify() error {
	want, bytes := c.Hash, c.Bytes
	if err := c.seal(); err != nil {
		return err
	}
	if c.Hash != want || c.Bytes != bytes {
		c.Hash, c.Bytes = want, bytes
		return fmt.Errorf("candidate %s: its files do not match its hash (the candidate file was changed)", c.ID)
	}
	return nil
}

// subject is the campaign's subject resolved: its root and globs.
type subject struct {
	root    string
	mutable []glob.Glob
	exclude []glob.Glob
}

func (c *Campaign) subject() (*subject, error) {
	s := &subject{root: c.root()}
	if abs, err := filepath.Abs(s.root); err == nil {
		s.root = abs
	}
	for _, g := range c.Subject.Mutable {
		cg, err := glob.Compile(g)
		if err != nil {
			return nil, err
		}
		s.mutable = append(s.mutable, cg)
	}
	for _, g := range slices.Concat(DefaultExclude, c.Subject.Exclude) {
		cg, err := glob.Compile(g)
		if err != nil {
			return nil, err
		}
		s.exclude = append(s.exclude, cg)
	}
	return s, nil
}

func (s *subject) excluded(rel string) bool {
	return slices.ContainsFunc(s.exclude, func(g glob.Glob) bool { return g.Match(rel) })
}

func (s *subject) isMutable(rel string) bool {
	return !s.excluded(rel) && slices.ContainsFunc(s.mutable, func(g glob.Glob) bool { return g.Match(rel) })
}

// capture reads the baseline: every mutable file, each a regular UTF-8
// file without NUL bytes, at least one.
func (s *subject) capture() (*Candidate, error) {
	files := map[string]string{}
	var probs []string
	err := s.walk(s.root, func(rel string, d fs.DirEntry) error {
		if !s.isMutable(rel) {
			return nil
		}
		if !d.Type().IsRegular() {
			probs = append(probs, fmt.Sprintf("%s is not a regular file (symlinks are never followed)", rel))
			return nil
		}
		b, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		switch {
		case bytes.IndexByte(b, 0) >= 0:
			probs = append(probs, rel+" contains a NUL byte (mutable files are text)")
		case !utf8.Valid(b):
			probs = append(probs, rel+" is not UTF-8 text")
		default:
			files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("experiment: subject %s: %w", s.root, err)
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("experiment: subject %s: %s", s.root, strings.Join(probs, "; "))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("experiment: subject %s: the mutable globs match no file (check subject.mutable; names starting with a dot need a pattern that starts with a dot)", s.root)
	}
	base := &Candidate{SchemaVersion: 1, ID: BaselineID, ParentIDs: []string{}, Files: files}
	return base, base.seal()
}

// variant returns the candidate of v over the baseline: v may replace
// existing mutable files only.
func (s *subject) variant(base *Candidate, v Variant) (*Candidate, error) {
	files := make(map[string]string, len(base.Files))
	for k, x := range base.Files {
		files[k] = x
	}
	var probs []string
	for _, rel := range sortedKeys(v.Files) {
		if _, ok := base.Files[rel]; !ok {
			probs = append(probs, fmt.Sprintf("files.%s: not a mutable file of the subject (a variant replaces existing files matched by subject.mutable)", rel))
			continue
		}
		if !utf8.ValidString(v.Files[rel]) {
			probs = append(probs, fmt.Sprintf("files.%s: not UTF-8 text", rel))
		}
		files[rel] = v.Files[rel]
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("experiment: variant %s: %s", v.ID, strings.Join(probs, "; "))
	}
	c := &Candidate{SchemaVersion: 1, ID: v.ID, Name: v.Name, ParentIDs: []string{BaselineID}, Files: files}
	return c, c.seal()
}

// walk calls fn for every entry of dir not excluded, in lexical order,
// never following symlinks.
func (s *subject) walk(dir string, fn func(rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if s.excluded(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		return fn(rel, d)
	})
}

// hash is the content hash of the tree at dir minus the excluded paths:
// every entry's path, kind, executable bit and content (a symlink's
// target).
func (s *subject) hash(dir string) (string, error) {
	return hashTree(dir, s)
}

// hashTree hashes the tree at dir (minus what s excludes, when s is set).
func hashTree(dir string, s *subject) (string, error) {
	h := sha256.New()
	err := treeEntries(dir, s, func(rel, entry string) {
		fmt.Fprintf(h, "%s %q %s\n", entry[:1], rel, entry[2:])
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// files describes every entry of the tree at dir (minus the excluded
// paths) by its kind and content, keyed by its slash-separated path: what
// hashTree hashes, kept in the manifest so that a changed subject is
// reported file by file.
func (s *subject) files(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := treeEntries(dir, s, func(rel, entry string) { out[rel] = entry })
	return out, err
}

// treeEntries calls fn, in lexical order, with each entry's path and its
// description: "f <executable> <sha256>" for a regular file, "l <target>"
// (quoted) for a symlink, "o <type>" for anything else.
func treeEntries(dir string, s *subject, fn func(rel, entry string)) error {
	if s == nil {
		s = &subject{}
	}
	return s.walk(dir, func(rel string, d fs.DirEntry) error {
		full := filepath.Join(dir, filepath.FromSlash(rel))
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(full)
			if err != nil {
				return err
			}
			fn(rel, fmt.Sprintf("l %q", target))
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			f, err := os.Open(full)
			if err != nil {
				return err
			}
			fh := sha256.New()
			_, err = io.Copy(fh, f)
			f.Close()
			if err != nil {
				return err
			}
			fn(rel, fmt.Sprintf("f %v %s", info.Mode()&0o111 != 0, hex.EncodeToString(fh.Sum(nil))))
		default:
			fn(rel, fmt.Sprintf("o %v", d.Type()))
		}
		return nil
	})
}

// filesDiff names the paths that differ between two descriptions of a
// tree (see files): "changed: a; added: b; removed: c".
func filesDiff(was, now map[string]string) string {
	var changed, added, removed []string
	for _, rel := range sortedKeys(now) {
		if old, ok := was[rel]; !ok {
			added = append(added, rel)
		} else if old != now[rel] {
			changed = append(changed, rel)
		}
	}
	for _, rel := range sortedKeys(was) {
		if _, ok := now[rel]; !ok {
			removed = append(removed, rel)
		}
	}
	var parts []string
	for _, p := range []struct {
		what  string
		paths []string
	}{{"changed", changed}, {"added", added}, {"removed", removed}} {
		if len(p.paths) > 0 {
			parts = append(parts, p.what+": "+strings.Join(p.paths, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// materialize writes the candidate's tree to dst (which must not exist):
// the subject minus excluded paths, with the candidate's files. It
// returns the tree's hash.
func (s *subject) materialize(c *Candidate, dst string) (string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	err := s.walk(s.root, func(rel string, d fs.DirEntry) error {
		src, to := filepath.Join(s.root, filepath.FromSlash(rel)), filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(src, to, info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("experiment: materialize candidate %s: %w", c.ID, err)
	}
	for _, rel := range sortedKeys(c.Files) {
		to := filepath.Join(dst, filepath.FromSlash(rel))
		mode := fs.FileMode(0o644)
		if info, err := os.Lstat(to); err == nil {
			mode = info.Mode().Perm()
		}
		if err := os.WriteFile(to, []byte(c.Files[rel]), mode); err != nil {
			return "", fmt.Errorf("experiment: materialize candidate %s: %w", c.ID, err)
		}
	}
	return s.hash(dst)
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// changedFiles lists the mutable files of dir that differ from c's (for
// messages).
func (s *subject) changedFiles(dir string, c *Candidate) []string {
	var out []string
	for _, rel := range sortedKeys(c.Files) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || string(b) != c.Files[rel] {
			out = append(out, rel)
		}
	}
	return out
}
