package orchestrator

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux/internal/command"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/record"
)

const (
	probeTimeout     = 5 * time.Second
	maxSnapshotBytes = 10_000_000
)

// provenanceCache remembers what is costly to discover and the same for
// every run of a process: resolved commands and their versions, and the
// state of each git repository holding cases.
type provenanceCache struct {
	// runsRoot is where the records go; inside a repository, git's view
	// of the tree leaves it out.
	runsRoot string
	mu       sync.Mutex
	commands map[string]*onceValue[record.CommandInfo]
	repos    map[string]*onceValue[*record.GitInfo]
	roots    map[string]string // gitRoot by directory: looked up once, not per run
}

type onceValue[T any] struct {
	once sync.Once
	v    T
}

func newProvenanceCache(runsRoot string) *provenanceCache {
	return &provenanceCache{runsRoot: runsRoot, commands: map[string]*onceValue[record.CommandInfo]{}, repos: map[string]*onceValue[*record.GitInfo]{}}
}

func hostInfo() record.Host {
	return record.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version()}
}

// command finds name, a command as configured, as the driver that starts
// it does (command.Find, against the case directory dir and the agent's
// searchPath: see lux.Runtime.SearchPath), and identifies the executable
// found, once per Orchestrator and executable: a known agent CLI (cli) by
// its sandboxed --version, any other command by its content hash, never
// running it (see command.IdentifyCLI and command.Identify). The result
// keeps the configured name; its Path is empty when nothing is found.
func (pc *provenanceCache) command(ctx context.Context, dir, name, searchPath string, cli bool) record.CommandInfo {
	found, err := command.Find(dir, name, searchPath)
	if err != nil {
		return record.CommandInfo{Name: name}
	}
	key := found
	if cli {
		key = "cli\x00" + found
	}
	pc.mu.Lock()
	e := pc.commands[key]
	if e == nil {
		e = &onceValue[record.CommandInfo]{}
		pc.commands[key] = e
	}
	pc.mu.Unlock()
	e.once.Do(func() {
		if cli {
			e.v = command.IdentifyCLI(context.WithoutCancel(ctx), found)
		} else {
			e.v = command.Identify(found)
		}
	})
	info := e.v
	info.Name = name
	return info
}

type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (o *Orchestrator) runtimeInfo(ctx context.Context, p *plan) record.RuntimeInfo {
	ri := record.RuntimeInfo{Driver: p.driverName, Capabilities: p.runtime.Capabilities, Model: p.runtime.Model}
	for _, c := range p.runtime.Commands {
		ri.Commands = append(ri.Commands, o.prov.command(ctx, p.caseDir, c, p.runtime.SearchPath, slices.Contains(p.runtime.Versioned, c)))
	}
	for _, s := range p.runtime.Scripts {
		ri.Scripts = append(ri.Scripts, command.Script(s))
	}
	for _, f := range p.varFiles {
		if !slices.Contains(p.runtime.Scripts, f) {
			ri.Scripts = append(ri.Scripts, command.Script(f))
		}
	}
	ri.Hooks = o.hookIdentities()
	return ri
}

// source describes where the case came from: its path relative to the
// repository holding it, and the repository's commit and state; outside a
// repository, the case file's name (where a directory of cases sits is not
// what a run measures; case.json keeps the path as given). Inline cases
// have none.
func (pc *provenanceCache) source(ctx context.Context, casePath string) *record.Source {
	if casePath == "" {
		return nil
	}
	abs, err := filepath.Abs(casePath)
	if err != nil {
		return &record.Source{CasePath: filepath.ToSlash(casePath)}
	}
	dir := filepath.Dir(abs)
	pc.mu.Lock()
	root, known := pc.roots[dir]
	pc.mu.Unlock()
	if !known {
		root = gitRoot(dir)
		pc.mu.Lock()
		if pc.roots == nil {
			pc.roots = map[string]string{}
		}
		pc.roots[dir] = root
		pc.mu.Unlock()
	}
	src := &record.Source{CasePath: filepath.Base(abs)}
	if root == "" {
		return src
	}
	pc.mu.Lock()
	e := pc.repos[root]
	if e == nil {
		e = &onceValue[*record.GitInfo]{}
		pc.repos[root] = e
	}
	pc.mu.Unlock()
	e.once.Do(func() { e.v = gitState(ctx, root, pc.runsRoot) })
	if e.v == nil {
		// Not a repository git can read: the file name alone, rather than
		// a path relative to a directory that merely holds a .git entry.
		return src
	}
	if rel, err := filepath.Rel(root, abs); err == nil {
		src.CasePath = filepath.ToSlash(rel)
	}
	g := *e.v
	src.Git = &g
	return src
}

// gitRoot returns the nearest ancestor of dir holding .git, or "".
func gitRoot(dir string) string {
	for {
		if isGitEntry(filepath.Join(dir, ".git")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// isGitEntry reports whether p looks like a repository's .git: a directory
// holding HEAD, or a file pointing elsewhere ("gitdir: ...", as in
// worktrees and submodules).
func isGitEntry(p string) bool {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return false
	case fi.IsDir():
		_, err := os.Stat(filepath.Join(p, "HEAD"))
		return err == nil
	case fi.Mode().IsRegular():
		b := make([]byte, 8)
		f, err := os.Open(p)
		if err != nil {
			return false
		}
		defer f.Close()
		n, _ := f.Read(b)
		return string(b[:n]) == "gitdir: "
	}
	return false
}

func git(ctx context.Context, root string, args ...string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	lb := &limitedBuffer{b: &out, max: maxSnapshotBytes + 1}
	cmd.Stdout = lb
	if err := cmd.Run(); err != nil || out.Len() > maxSnapshotBytes {
		return nil, false
	}
	return out.Bytes(), true
}

// gitState returns the commit and state of the repository at root, or nil
// when git cannot tell. A dirty tree gets a hash of its changes (the diff
// against HEAD and the untracked files) when they are small enough. The
// runs root, when inside the repository, is left out of both.
func gitState(ctx context.Context, root, runsRoot string) *record.GitInfo {
	head, ok := git(ctx, root, "rev-parse", "HEAD")
	if !ok {
		return nil
	}
	scope := pathspec(root, runsRoot)
	status, ok := git(ctx, root, append([]string{"status", "--porcelain=v1", "--untracked-files=normal"}, scope...)...)
	if !ok {
		return nil
	}
	g := &record.GitInfo{Commit: strings.TrimSpace(string(head)), Dirty: len(bytes.TrimSpace(status)) > 0}
	if g.Dirty {
		g.WorkingTreeHash = workingTreeHash(ctx, root, scope)
	}
	return g
}

// pathspec is the part of the repository at root that provenance reads:
// all of it but the runs root when that lies inside it.
func pathspec(root, runsRoot string) []string {
	if runsRoot == "" {
		return nil
	}
	abs, err := filepath.Abs(runsRoot)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	rel, err := filepath.Rel(realRoot, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return []string{"--", ".", ":(exclude,literal)" + filepath.ToSlash(rel)}
}

func workingTreeHash(ctx context.Context, root string, scope []string) string {
	if scope == nil {
		scope = []string{"--"}
	}
	diff, ok := git(ctx, root, append([]string{"diff", "--no-ext-diff", "--no-textconv", "--binary", "HEAD"}, scope...)...)
	if !ok {
		return ""
	}
	list, ok := git(ctx, root, append([]string{"ls-files", "--others", "--exclude-standard", "-z"}, scope...)...)
	if !ok {
		return ""
	}
	type untracked struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
		Mode uint32 `json:"mode"`
		Hash string `json:"contentHash,omitempty"`
		Link string `json:"target,omitempty"`
	}
	var files []untracked
	total := int64(len(diff))
	sc := bufio.NewScanner(bytes.NewReader(list))
	sc.Buffer(make([]byte, 64<<10), maxSnapshotBytes)
	sc.Split(splitNUL)
	for sc.Scan() {
		rel := sc.Text()
		full := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(full)
		if err != nil {
			return ""
		}
		u := untracked{Path: rel, Mode: uint32(fi.Mode())}
		switch {
		case fi.Mode().IsRegular():
			total += fi.Size()
			if total > maxSnapshotBytes {
				return ""
			}
			b, err := os.ReadFile(full)
			if err != nil {
				return ""
			}
			sum := sha256.Sum256(b)
			u.Kind, u.Hash = "file", hex.EncodeToString(sum[:])
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return ""
			}
			u.Kind, u.Link = "symlink", t
		default:
			u.Kind = "special"
		}
		files = append(files, u)
	}
	if sc.Err() != nil {
		return ""
	}
	sum := sha256.Sum256(diff)
	h, err := digest.Value(map[string]any{"trackedDiffHash": hex.EncodeToString(sum[:]), "untrackedFiles": files})
	if err != nil {
		return ""
	}
	return h
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
