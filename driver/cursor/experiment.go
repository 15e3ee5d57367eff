package cursor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// ExperimentVersion is the version of the driver's behaviour in controlled
// experiments; it changes when runs of an older version stop being
// comparable with new ones.
const ExperimentVersion = "1"

func experiment() *lux.DriverExperiment {
	return driver.Experiment("cursor", ExperimentVersion, prepare, identity)
}

// prepare returns the controlled form of a config: the host environment is
// not inherited (the CLI gets PATH with the system directories, HOME, the
// config's env and the API key of apiKeyEnv).
func prepare(d *Config) (*Config, error) {
	cp := *d
	cp.ProcessConfig = cp.Controlled()
	cp.ExtraArgs = slices.Clone(cp.ExtraArgs)
	return &cp, nil
}

// Identity is what shapes the agent's behaviour beyond the driver config:
// the CLI's version, and the user-level files the CLI reads at every run
// (cli-config.json holds permissions and the approval mode, mcp.json the
// MCP servers, hooks.json the hooks), each as its SHA-256 or "absent".
// The workspace's own .cursor directory comes from the case's fixtures,
// which provenance hashes already.
type Identity struct {
	CLIVersion string            `json:"cliVersion"`
	ConfigDir  string            `json:"configDir"`
	UserFiles  map[string]string `json:"userFiles"`
}

// userFiles are the files of the CLI's config directory in Identity.
var userFiles = []string{"cli-config.json", "mcp.json", "hooks.json"}

func identity(ctx context.Context, d *Config, _ string) (any, error) {
	info := driver.IdentifyCLI(ctx, d.Command)
	if info.Path == "" {
		return nil, fmt.Errorf("cursor: %s not found (install it: %s)", d.Command, InstallHint)
	}
	if info.Version == "" {
		return nil, fmt.Errorf("cursor: %s --version printed no version", info.Path)
	}
	dir := d.configDir()
	id := Identity{CLIVersion: info.Version, ConfigDir: dir, UserFiles: map[string]string{}}
	for _, name := range userFiles {
		sum, err := driver.HashFile(filepath.Join(dir, name))
		switch {
		case err == nil:
			id.UserFiles[name] = sum
		case errors.Is(err, fs.ErrNotExist):
			id.UserFiles[name] = "absent"
		default:
			return nil, fmt.Errorf("cursor: identity: %w", err)
		}
	}
	return id, nil
}

// configDir is where the CLI keeps its configuration for this config's
// environment: $CURSOR_CONFIG_DIR, else $XDG_CONFIG_HOME/cursor, else ~/.cursor.
func (d *Config) configDir() string {
	get := func(k string) string {
		if v, ok := d.Env[k]; ok {
			return v
		}
		if d.Inherits(processDefaults) {
			return os.Getenv(k)
		}
		return ""
	}
	if v := get("CURSOR_CONFIG_DIR"); v != "" {
		return v
	}
	if v := get("XDG_CONFIG_HOME"); v != "" {
		return filepath.Join(v, "cursor")
	}
	home := get("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cursor")
}
