package luxtest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
)

// The files the check plants in every scenario's workspace before the
// agent starts: a regular file Collect must return, and two symlinks
// pointing out of the workspace that Collect must never follow.
const (
	plantedFile    = "luxtest-fixture.txt"
	plantedLink    = "luxtest-link"    // to a file outside the workspace
	plantedDirLink = "luxtest-linkdir" // to a directory outside the workspace
)

// plant creates the workspace with a fixture file and symlinks out of it.
func plant(workspace, outside string) error {
	for _, dir := range []string{workspace, outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	return errors.Join(
		os.WriteFile(filepath.Join(workspace, plantedFile), []byte("staged by luxtest\n"), 0o644),
		os.WriteFile(secret, []byte("outside the workspace\n"), 0o644),
		os.Symlink(secret, filepath.Join(workspace, plantedLink)),
		os.Symlink(outside, filepath.Join(workspace, plantedDirLink)),
	)
}

// checkArtifacts checks that every artifact is a regular file inside the
// workspace reached without a symlink, described truly, and that the
// planted fixture is among them.
func (c *checker) checkArtifacts(workspace string, arts []lux.Artifact) {
	seen := map[string]bool{}
	for _, a := range arts {
		p := a.Path
		if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
			c.add("collect", "artifact path %q is not a clean slash-separated path inside the workspace", p)
			continue
		}
		if seen[p] {
			c.add("collect", "artifact %q is listed twice", p)
		}
		seen[p] = true
		if msg := throughSymlink(workspace, p); msg != "" {
			c.add("collect", "artifact %q %s; Collect must never follow symlinks", p, msg)
			continue
		}
		fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(p)))
		switch {
		case err != nil:
			c.add("collect", "artifact %q is not in the workspace: %v", p, err)
			continue
		case !fi.Mode().IsRegular():
			c.add("collect", "artifact %q is not a regular file (%s)", p, fi.Mode().Type())
			continue
		case fi.Size() != a.Size:
			c.add("collect", "artifact %q has size %d, but the file has %d bytes", p, a.Size, fi.Size())
		}
		if a.SHA256 != "" {
			data, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(p)))
			if err == nil {
				sum := sha256.Sum256(data)
				if got := hex.EncodeToString(sum[:]); got != a.SHA256 {
					c.add("collect", "artifact %q has sha256 %s, but the file's is %s", p, a.SHA256, got)
				}
			}
		}
	}
	if !seen[plantedFile] {
		if fi, err := os.Lstat(filepath.Join(workspace, plantedFile)); err == nil && fi.Mode().IsRegular() {
			c.add("collect", "Collect did not return %q, a file staged in the workspace before the agent started; it must return every regular file there", plantedFile)
		}
	}
}

// throughSymlink says how p (relative to root) involves a symlink, or "".
func throughSymlink(root, p string) string {
	parts := strings.Split(p, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(sub)))
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if i == len(parts)-1 {
				return "is a symlink"
			}
			return fmt.Sprintf("goes through the symlink %q", sub)
		}
	}
	return ""
}
