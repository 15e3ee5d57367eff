package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/digest"
)

// Name is the driver's name in a registry.
const Name = "codex"

// ExperimentVersion changes when the driver's behaviour changes in a way
// that makes runs of different versions incomparable.
const ExperimentVersion = "1"

// Plugin returns the codex driver plugin, to register in a lux.Registry.
func Plugin() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name: Name,
		Doc: "Runs OpenAI's Codex CLI: `codex exec --json` for one-shot runs (mode \"exec\", the default), " +
			"or `codex app-server` over JSON-RPC when questions and approvals must be answered (mode \"app-server\"). " +
			"Each run gets its own CODEX_HOME in the run directory. Install: " + InstallHint,
		Parse:      driver.Parser(Parse),
		Experiment: driver.Experiment("codex", ExperimentVersion, prepare, identity),
	}
}

// prepare turns a config into the one controlled experiments run: the
// host environment is not inherited.
func prepare(c *Config) (*Config, error) {
	out := c.clone()
	out.ProcessConfig = out.Controlled()
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("codex: prepare: %w", err)
	}
	*out = out.withDefaults()
	return out, nil
}

// Identity is what shapes the agent's behaviour in a run, so that arms
// with different agents are never pooled.
type Identity struct {
	// CLIVersion is the release number `codex --version` printed (see
	// driver.ProbeVersion).
	CLIVersion string `json:"cliVersion"`
	// Executable is the resolved command and SHA256 the hash of the file
	// it resolves to (for an npm install, the CLI's launcher script).
	Executable string `json:"executable"`
	SHA256     string `json:"sha256"`
	// SettingsHash is the hash of the settings that shape the agent's
	// behaviour: mode, model, provider, sandbox, approval policy,
	// reasoning effort, overrides, extra arguments and environment.
	SettingsHash string `json:"settingsHash"`
}

// identity computes the Identity of a config. A command that cannot be
// found is an error naming the install hint.
func identity(ctx context.Context, c *Config, root string) (any, error) {
	cmd := c.Command
	if root != "" && !filepath.IsAbs(cmd) && filepath.Base(cmd) != cmd {
		cmd = filepath.Join(root, cmd)
	}
	info := driver.IdentifyCLI(ctx, cmd)
	if info.Path == "" {
		return nil, fmt.Errorf("codex: %q is not installed (install it with %q, or set command to its path)", c.Command, InstallHint)
	}
	real, err := filepath.EvalSymlinks(info.Path)
	if err != nil {
		return nil, fmt.Errorf("codex: identity: %w", err)
	}
	sum, err := driver.HashFile(real)
	if err != nil {
		return nil, fmt.Errorf("codex: identity: %w", err)
	}
	settings, err := digest.Value(c.settings())
	if err != nil {
		return nil, fmt.Errorf("codex: identity: %w", err)
	}
	return Identity{CLIVersion: info.Version, Executable: info.Path, SHA256: sum, SettingsHash: settings}, nil
}

// settings are the parts of the config that shape the agent's behaviour
// (not the limits and bookkeeping: idle timeout, interrupt cap, home
// handling, the command, which the executable identifies).
func (c *Config) settings() any {
	return map[string]any{
		"mode":            c.Mode,
		"model":           c.Model,
		"provider":        c.Provider,
		"sandbox":         c.Sandbox,
		"approvalPolicy":  c.ApprovalPolicy,
		"reasoningEffort": c.ReasoningEffort,
		"config":          c.Overrides,
		"extraArgs":       c.ExtraArgs,
		"env":             c.Env,
		"inheritEnv":      c.Inherits(processDefaults),
		"homeConfig":      c.homeConfig(),
	}
}

// clone returns a deep copy of c, through JSON.
func (c *Config) clone() *Config {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("codex: config does not marshal: %v", err)) // only JSON values are stored
	}
	out := &Config{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("codex: config does not round-trip: %v", err))
	}
	return out
}
