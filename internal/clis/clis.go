// Package clis finds the agent CLIs (Claude Code, Codex) that
// .ci/install-clis.sh installs into a cache directory.
package clis

import (
	"os"
	"os/exec"
	"path/filepath"
)

// CacheDirs returns the CLI caches to search, in order: $LUX_CLI_CACHE when
// set, then the default ~/.cache/lux-clis.
func CacheDirs() []string {
	var dirs []string
	if d := os.Getenv("LUX_CLI_CACHE"); d != "" {
		dirs = append(dirs, d)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "lux-clis"))
	}
	return dirs
}

// Lookup returns the path of the executable name in the CLI caches'
// node_modules/.bin, else on PATH, else "".
func Lookup(name string) string {
	for _, d := range CacheDirs() {
		if p := filepath.Join(d, "node_modules", ".bin", name); IsExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
