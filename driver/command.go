package driver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/proc"
)

// VersionTimeout bounds `<command> --version` in CommandInfo.
const VersionTimeout = 5 * time.Second

// CommandPath returns the command a driver config names, with a relative
// path resolved against dir, the directory of the case file that names it
// (as the case's fixtures are): "./agent.sh" or "../bin/agent" in
// cases/hello.case.json is cases/agent.sh or bin/agent. A bare name (looked
// up on PATH), an absolute path, or any name when dir is "" (an inline
// case, or a driver given by the harness rather than the case) is returned
// unchanged. Every driver resolves its commands through it, and so do the
// orchestrator's preflight and provenance, so a command is found the same
// way by each.
func CommandPath(dir, name string) string {
	if dir == "" || name == "" || filepath.IsAbs(name) || !strings.ContainsAny(name, `/`+string(filepath.Separator)) {
		return name
	}
	return filepath.Join(dir, name)
}

// ResolveCommand returns the absolute path of the executable name names: a
// name with a slash is taken as a path (relative to this process's working
// directory) and must exist; a bare name is looked up on this process's PATH.
func ResolveCommand(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("driver: empty command")
	}
	if strings.ContainsRune(name, filepath.Separator) || strings.Contains(name, "/") {
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", fmt.Errorf("driver: resolve %s: %w", name, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("driver: resolve %s: %w", name, err)
		}
		if info.IsDir() || info.Mode()&0o111 == 0 {
			return "", fmt.Errorf("driver: resolve %s: not an executable file", name)
		}
		return abs, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("driver: %s not found on PATH", name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("driver: resolve %s: %w", name, err)
	}
	return abs, nil
}

var versions struct {
	mu sync.Mutex
	m  map[string]string // resolved path -> version
}

// CommandInfo resolves name (see ResolveCommand) and discovers its version:
// the first line of `<path> --version` run with this process's environment
// and a VersionTimeout limit, remembered per resolved path for the life of
// the process. Path is empty when the command is not found; Version is
// empty when it cannot be discovered.
func CommandInfo(ctx context.Context, name string) lux.CommandInfo {
	info := lux.CommandInfo{Name: name}
	path, err := ResolveCommand(name)
	if err != nil {
		return info
	}
	info.Path = path
	versions.mu.Lock()
	v, ok := versions.m[path]
	versions.mu.Unlock()
	if ok {
		info.Version = v
		return info
	}
	info.Version = discoverVersion(ctx, path)
	if ctx.Err() == nil {
		versions.mu.Lock()
		if versions.m == nil {
			versions.m = map[string]string{}
		}
		versions.m[path] = info.Version
		versions.mu.Unlock()
	}
	return info
}

func discoverVersion(ctx context.Context, path string) string {
	res, err := proc.Run(ctx, proc.Spec{
		Path:      path,
		Args:      []string{"--version"},
		Env:       os.Environ(),
		Timeout:   VersionTimeout,
		MaxOutput: 64 << 10,
		Grace:     time.Second,
	})
	if err != nil || res.TimedOut || res.Code != 0 {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			return line
		}
	}
	return ""
}
