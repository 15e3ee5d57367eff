// Package command finds and identifies the commands a driver launches: a
// configured command's path resolved against the case file's directory
// (Path), the executable it names (Resolve), and its identity for a run's
// provenance (Identify, IdentifyCLI, Script). Package driver exports it to
// driver authors; the orchestrator uses it for provenance and preflight
// without the process toolkit.
package command

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/internal/version"
	"github.com/luxeval/lux/record"
)

const (
	// VersionTimeout bounds a CLI's --version in ProbeVersion. It is
	// generous: a CLI on Node can take many seconds to print its version
	// on a loaded machine, and a version cut short is an identity lost.
	VersionTimeout = 30 * time.Second
	// MaxVersionOutput is how much of a CLI's --version output is read.
	MaxVersionOutput = 4 << 10
	// MaxHashBytes is the largest executable Identify hashes;
	// a larger one is recorded without a hash.
	MaxHashBytes = 512 << 20
)

// Path returns the command a driver config names, with a relative
// path resolved against dir, the directory of the case file that names it
// (as the case's fixtures are): "./agent.sh" or "../bin/agent" in
// cases/hello.case.json is cases/agent.sh or bin/agent. A bare name (looked
// up on PATH), an absolute path, or any name when dir is "" (an inline
// case, or a driver given by the harness rather than the case) is returned
// unchanged. Every driver resolves its commands through it, and so do the
// orchestrator's preflight and provenance, so a command is found the same
// way by each.
func Path(dir, name string) string {
	if dir == "" || name == "" || !PathLike(name) || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// PathLike reports whether a configured command names a file (an absolute
// path, or one holding a slash: "./agent.sh", "../agent/agent.py") rather
// than a program to look up on PATH ("claude").
func PathLike(name string) bool {
	return filepath.IsAbs(name) || strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator)
}

// Resolve returns the absolute path of the executable name names:
// a path-like name (see PathLike) is a file, relative to this process's
// working directory (resolve a case's relative command with Path
// first), and must be an executable regular file; a bare name is looked up
// on this process's PATH. It is Find with no case directory and no
// search path of the agent's own.
func Resolve(name string) (string, error) {
	return Find("", name, "")
}

// Find returns the absolute path of the executable a driver starts for
// the command name as configured: a path-like name (see PathLike) is a
// file, relative to dir, the case file's directory (see Path), else to
// this process's working directory, and must be an executable regular
// file; a bare name is looked up on searchPath first — the PATH the
// agent is given, when its config sets one (its relative entries are
// skipped) — then on this process's PATH.
//
// A driver starts the path Find returns, and the orchestrator identifies
// (provenance, preflight) the path Find returns for the same dir, name
// and searchPath (lux.Runtime.SearchPath), so that a run records the
// executable that was started.
func Find(dir, name, searchPath string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("command: empty command")
	}
	if PathLike(name) {
		p := Path(dir, name)
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("command: resolve %s: %w", p, err)
		}
		if err := executable(abs); err != nil {
			return "", fmt.Errorf("command: resolve %s: %w", p, err)
		}
		return abs, nil
	}
	for _, d := range filepath.SplitList(searchPath) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, name); executable(p) == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if searchPath != "" {
			return "", fmt.Errorf("command: %s not found on the agent's PATH (%s) nor on the harness's PATH", name, searchPath)
		}
		return "", fmt.Errorf("command: %s not found on PATH", name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("command: resolve %s: %w", name, err)
	}
	return abs, nil
}

// executable reports why path is not an executable regular file, or nil.
func executable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case info.IsDir() || info.Mode()&0o111 == 0:
		return fmt.Errorf("not an executable file")
	}
	return nil
}

// fileKey names one version of a file: a file edited in place (new size,
// modification time or inode) is a new key.
type fileKey struct {
	path        string
	size        int64
	mtime       int64
	dev, inode  uint64
	mode        os.FileMode
	versionSeen bool
}

func keyOf(path string, fi os.FileInfo) fileKey {
	k := fileKey{path: path, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.dev, k.inode = uint64(st.Dev), uint64(st.Ino)
	}
	return k
}

var identities struct {
	mu sync.Mutex
	m  map[fileKey]record.CommandInfo
}

// Identify resolves name (see Resolve) and identifies it by
// content, never running it: Path is the executable with symlinks
// resolved, SHA256 the hash of its content (up to MaxHashBytes). A
// lux-jsonl agent or any script is identified this way, so editing it
// changes every run's identity. Path is empty when the command is not
// found. Results are remembered per version of the file.
func Identify(name string) record.CommandInfo {
	return identify(context.Background(), name, false)
}

// IdentifyCLI identifies name as a known agent CLI (claude, codex,
// cursor-agent): by its version, asked with ProbeVersion in a sandbox, and
// by its content hash only when it gives no version. Use it only for a
// command listed in lux.Runtime.Versioned.
func IdentifyCLI(ctx context.Context, name string) record.CommandInfo {
	return identify(ctx, name, true)
}

// IdentifyRuntime identifies each of rt's commands: those in rt.Versioned
// with IdentifyCLI, the others with Identify.
func IdentifyRuntime(ctx context.Context, rt lux.Runtime) []record.CommandInfo {
	var out []record.CommandInfo
	for _, c := range rt.Commands {
		out = append(out, identify(ctx, c, isVersioned(rt, c)))
	}
	return out
}

func isVersioned(rt lux.Runtime, name string) bool {
	for _, v := range rt.Versioned {
		if v == name {
			return true
		}
	}
	return false
}

func identify(ctx context.Context, name string, cli bool) record.CommandInfo {
	info := record.CommandInfo{Name: name}
	found, err := Resolve(name)
	if err != nil {
		return info
	}
	path := found
	if real, err := filepath.EvalSymlinks(found); err == nil {
		path = real
	}
	info.Path = path
	fi, err := os.Stat(path)
	if err != nil {
		return info
	}
	key := keyOf(path, fi)
	key.versionSeen = cli
	identities.mu.Lock()
	cached, ok := identities.m[key]
	identities.mu.Unlock()
	if ok {
		cached.Name = name
		return cached
	}
	if cli {
		info.Version, info.RawVersion = ProbeVersion(ctx, found)
	}
	if info.Version == "" {
		info.SHA256, _ = hashExecutable(path, fi)
	}
	if ctx.Err() == nil {
		identities.mu.Lock()
		if identities.m == nil {
			identities.m = map[fileKey]record.CommandInfo{}
		}
		identities.m[key] = info
		identities.mu.Unlock()
	}
	return info
}

// hashExecutable hashes the file at path if it is still the file fi
// describes and no larger than MaxHashBytes.
func hashExecutable(path string, fi os.FileInfo) (string, error) {
	if !fi.Mode().IsRegular() || fi.Size() > MaxHashBytes {
		return "", fmt.Errorf("command: %s is not a regular file of at most %d bytes", path, MaxHashBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxHashBytes+1))
	if err != nil {
		return "", err
	}
	if n != fi.Size() {
		return "", fmt.Errorf("command: %s changed while it was hashed", path)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ProbeVersion runs `<path> --version` for a known agent CLI and returns
// the release number it printed, normalized (see version.Normalize),
// and the line it came from when that line reads as a version line and
// nothing else (version.Line). The CLI runs sandboxed: in a fresh
// temporary directory that is also its HOME and TMPDIR, with an
// environment of only PATH (the CLI's own directory, then proc.DefaultPath),
// HOME, TMPDIR and LANG=C — none of this process's variables, so no API
// key — in its own process group, stopped after VersionTimeout, with
// MaxVersionOutput bytes of output read. Output that holds no version is
// discarded: ("", "").
func ProbeVersion(ctx context.Context, path string) (v, raw string) {
	tmp, err := os.MkdirTemp("", "lux-version-")
	if err != nil {
		return "", ""
	}
	defer os.RemoveAll(tmp)
	res, err := proc.Run(ctx, proc.Spec{
		Path:      path,
		Args:      []string{"--version"},
		Dir:       tmp,
		Env:       probeEnv(path, tmp),
		Timeout:   VersionTimeout,
		MaxOutput: MaxVersionOutput,
		Grace:     time.Second,
	})
	if err != nil || res.TimedOut || res.Code != 0 {
		return "", ""
	}
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		v = version.Normalize(line)
		if v == "" {
			return "", ""
		}
		if version.Line(line) && line != v {
			raw = line
		}
		return v, raw
	}
	return "", ""
}

// probeEnv is the environment of a version probe: the CLI's own
// directory first on PATH (an npm-installed CLI's interpreter often sits
// beside its link), and a HOME and TMPDIR of its own.
func probeEnv(path, tmp string) []string {
	dirs := []string{filepath.Dir(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	return []string{
		"PATH=" + strings.Join(append(dirs, proc.DefaultPath), string(os.PathListSeparator)),
		"HOME=" + tmp,
		"TMPDIR=" + tmp,
		"LANG=C",
	}
}

// Scripts returns the arguments that name a script for the command to run:
// those that are absolute paths of regular files ("/opt/agent/agent.py" in
// "python3 /opt/agent/agent.py"). A driver lists them in
// lux.Runtime.Scripts so that the run's identity holds their content hash.
// A relative argument is not listed: the agent resolves it against its
// working directory, the workspace, whose files the fixtures hash covers.
func Scripts(args []string) []string {
	var out []string
	for _, a := range args {
		if !filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			out = append(out, filepath.Clean(a))
		}
	}
	return out
}

// Script identifies a script an interpreter runs (see Scripts) by the
// SHA-256 of its content: Name and Path are path, SHA256 is empty when the
// file cannot be read.
func Script(path string) record.CommandInfo {
	info := record.CommandInfo{Name: path, Path: path}
	if _, sum, err := digest.File(context.Background(), path, 0); err == nil {
		info.SHA256 = sum
	}
	return info
}
