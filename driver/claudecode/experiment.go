package claudecode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/digest"
)

// ExperimentVersion is the version of the driver's behaviour in controlled
// experiments: it changes when the way the driver runs the CLI changes.
const ExperimentVersion = "1"

// Identity is what shapes the agent's behaviour beyond the config itself:
// the CLI and the contents of the settings and plugins the config names.
// Two experiment arms whose identities differ are never pooled.
type Identity struct {
	CLIVersion string `json:"cliVersion"` // first line of `claude --version`
	// ExecutableSHA256 is the hash of the executable (symlinks followed),
	// not its path: the same CLI installed elsewhere is the same agent.
	ExecutableSHA256 string            `json:"executableSha256"`
	Settings         *ContentIdentity  `json:"settings,omitempty"`
	Plugins          []ContentIdentity `json:"plugins,omitempty"`
}

// ContentIdentity is the hash of a file or directory tree a config names.
type ContentIdentity struct {
	Path   string `json:"path"`   // as configured
	SHA256 string `json:"sha256"` // of the file, the tree, or inline JSON
}

// Prepare returns the controlled-experiment form of c: the same config,
// with the host environment not inherited (the CLI sees only the
// variables the config sets; see InheritEnv).
func Prepare(c *Config) (*Config, error) {
	out := c.clone()
	out.ProcessConfig = out.Controlled()
	return out, nil
}

// IdentityOf returns the behaviour identity of c: the CLI's version and
// executable hash, and the hashes of its settings and plugin directories,
// relative paths resolved against root.
func IdentityOf(ctx context.Context, c *Config, root string) (any, error) {
	info := driver.IdentifyCLI(ctx, c.command())
	if info.Path == "" {
		return nil, fmt.Errorf("claudecode: identity: %s not found (install it with: %s)", c.command(), InstallHint)
	}
	real, err := filepath.EvalSymlinks(info.Path)
	if err != nil {
		return nil, fmt.Errorf("claudecode: identity: %w", err)
	}
	sum, err := executableHash(real)
	if err != nil {
		return nil, fmt.Errorf("claudecode: identity: %w", err)
	}
	id := &Identity{CLIVersion: info.Version, ExecutableSHA256: sum}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	switch {
	case c.Settings == "":
	case inlineSettings(c.Settings):
		var v any
		if err := json.Unmarshal([]byte(c.Settings), &v); err != nil {
			return nil, fmt.Errorf("claudecode: identity: settings: %w", err)
		}
		h, err := digest.Value(v)
		if err != nil {
			return nil, fmt.Errorf("claudecode: identity: settings: %w", err)
		}
		id.Settings = &ContentIdentity{Path: "(inline)", SHA256: h}
	default:
		h, err := driver.HashFile(resolve(c.Settings))
		if err != nil {
			return nil, fmt.Errorf("claudecode: identity: settings: %w", err)
		}
		id.Settings = &ContentIdentity{Path: c.Settings, SHA256: h}
	}
	for i, d := range c.PluginDirs {
		h, err := treeHash(resolve(d))
		if err != nil {
			return nil, fmt.Errorf("claudecode: identity: pluginDirs[%d]: %w", i, err)
		}
		id.Plugins = append(id.Plugins, ContentIdentity{Path: d, SHA256: h})
	}
	return id, nil
}

// treeHash is the SHA-256 of a file, or of a directory tree: every entry's
// slash-separated path, type and content (a symlink's target, never
// followed), in path order.
func treeHash(root string) (string, error) {
	info, err := os.Lstat(root)
	if err != nil {
		return "", err
	}
	if info.Mode().IsRegular() {
		return driver.HashFile(root)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is neither a file nor a directory", root)
	}
	type entry struct{ path, kind, content string }
	var entries []entry
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			entries = append(entries, entry{rel, "dir", ""})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			entries = append(entries, entry{rel, "symlink", target})
		case d.Type().IsRegular():
			h, err := driver.HashFile(p)
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			kind := "file"
			if fi.Mode()&0o111 != 0 {
				kind = "exec"
			}
			entries = append(entries, entry{rel, kind, h})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", e.path, e.kind, e.content)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// executableHash hashes the CLI's executable (a large file) once per
// path, size and modification time for the life of the process.
func executableHash(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	exeHashes.mu.Lock()
	sum, ok := exeHashes.m[key]
	exeHashes.mu.Unlock()
	if ok {
		return sum, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hh := sha256.New()
	if _, err := io.Copy(hh, f); err != nil {
		return "", err
	}
	sum = hex.EncodeToString(hh.Sum(nil))
	exeHashes.mu.Lock()
	if exeHashes.m == nil {
		exeHashes.m = map[string]string{}
	}
	exeHashes.m[key] = sum
	exeHashes.mu.Unlock()
	return sum, nil
}

var exeHashes struct {
	mu sync.Mutex
	m  map[string]string
}
