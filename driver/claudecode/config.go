package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/naming"
)

// DefaultCommand is the CLI's executable when the config names none.
const DefaultCommand = "claude"

// InstallHint says how to install the CLI.
const InstallHint = "npm install -g @anthropic-ai/claude-code"

// processDefaults are the driver's defaults of driver.ProcessConfig: the
// host environment inherited, an idle timeout of
// driver.DefaultCLIIdleTimeout.
var processDefaults = driver.CLIDefaults(DefaultCommand, map[string]string{
	"CLAUDE_CONFIG_DIR": "each run gets its own config directory: put settings in the settings field and plugins in pluginDirs",
})

// Config configures the driver. Its zero value runs `claude` from PATH
// with the CLI's own default model, effort and permission mode, in this
// process's environment. Parse fills in the defaults, so that a config's
// hash in a run's provenance shows the values used.
type Config struct {
	// ProcessConfig is the command, env, inheritEnv and idleTimeout
	// fields, as every process driver reads them, with the defaults of
	// an agent CLI (see driver.CLIDefaults). Env sets variables over
	// everything but the per-run CLAUDE_CONFIG_DIR; when InheritEnv is
	// false the CLI gets only PATH (driver.DefaultPath), HOME (a
	// directory of the run), the driver's per-run variables, BaseURL,
	// the key of APIKeyEnv and Env. A silent shell command counts as
	// idle.
	driver.ProcessConfig
	// Model is passed as --model: an alias (sonnet, opus, haiku) or a
	// full model id. Empty leaves the CLI's default.
	Model string `json:"model,omitempty"`
	// Effort is passed as --effort: low, medium, high, xhigh or max.
	// Empty leaves the CLI's default.
	Effort string `json:"effort,omitempty"`
	// PermissionMode is passed as --permission-mode: default, acceptEdits,
	// auto, bypassPermissions, dontAsk, manual or plan. Empty leaves the
	// CLI's default mode, in which every tool call the permission rules do
	// not settle becomes an approve interrupt for the case's answerer.
	// bypassPermissions also sets IS_SANDBOX=1, without which the CLI
	// refuses the mode when run as root.
	PermissionMode string `json:"permissionMode,omitempty"`
	// AllowedTools and DisallowedTools are permission rules passed as
	// --allowedTools and --disallowedTools, e.g. "Write", "Bash(git *)".
	AllowedTools    []string `json:"allowedTools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	// PluginDirs are plugin directories (or .zip files) passed as
	// --plugin-dir. Their contents are part of the experiment identity.
	PluginDirs []string `json:"pluginDirs,omitempty"`
	// AddDirs are more directories the agent may access, passed as
	// --add-dir.
	AddDirs []string `json:"addDirs,omitempty"`
	// Settings is passed as --settings: a settings file's path, or the
	// settings as a JSON object. Its contents are part of the experiment
	// identity.
	Settings string `json:"settings,omitempty"`
	// Agent is passed as --agent: the agent the session runs as.
	Agent string `json:"agent,omitempty"`
	// MaxTurns is passed as --max-turns when positive: the CLI ends the
	// run in error after that many model requests.
	MaxTurns int `json:"maxTurns,omitempty"`
	// ExtraArgs are appended to the command line. Flags the driver
	// manages, or that a field above sets, are refused.
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// BaseURL is the Anthropic API's base URL, passed as
	// ANTHROPIC_BASE_URL: a gateway, or a scripted model server such as
	// the one of package modeltest. Empty leaves the CLI's default.
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKeyEnv names a variable of this process's environment whose value
	// the CLI gets as ANTHROPIC_API_KEY, so that no key is written in a
	// config. An unset or empty variable fails the run at start.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// MaxInterrupts ends the run when the CLI asks more than this many
	// questions and approvals. Default driver.DefaultMaxInterrupts (20).
	MaxInterrupts int `json:"maxInterrupts,omitempty"`
}

// The values the CLI accepts.
var (
	efforts         = []string{"low", "medium", "high", "xhigh", "max"}
	permissionModes = []string{"default", "acceptEdits", "auto", "bypassPermissions", "dontAsk", "manual", "plan"}
)

// managedFlags are flags the driver passes itself: the protocol depends on
// them.
var managedFlags = map[string]string{
	"-p": "", "--print": "", "--output-format": "", "--input-format": "",
	"--permission-prompt-tool": "", "--include-partial-messages": "", "--verbose": "",
	"--no-session-persistence": "", "--replay-user-messages": "",
	"-r": "", "--resume": "", "-c": "", "--continue": "", "--session-id": "", "--fork-session": "",
	"--bg": "", "--background": "", "--tmux": "", "-w": "", "--worktree": "",
	"--model": "model", "--effort": "effort", "--permission-mode": "permissionMode",
	"--dangerously-skip-permissions": "permissionMode", "--allow-dangerously-skip-permissions": "permissionMode",
	"--allowedTools": "allowedTools", "--allowed-tools": "allowedTools",
	"--disallowedTools": "disallowedTools", "--disallowed-tools": "disallowedTools",
	"--plugin-dir": "pluginDirs", "--add-dir": "addDirs", "--settings": "settings",
	"--agent": "agent", "--max-turns": "maxTurns",
}

// Parse decodes and validates a config strictly (unknown fields and
// every invalid value are reported together, each with its field path),
// then fills in the defaults.
func Parse(raw json.RawMessage) (*Config, error) {
	c := &Config{}
	if err := lux.DecodeConfig(raw, c, c.Validate); err != nil {
		return nil, fmt.Errorf("claudecode: %w", err)
	}
	*c = c.withDefaults()
	return c, nil
}

// withDefaults returns c with the fields left at their zero value set to
// their defaults.
func (c Config) withDefaults() Config {
	c.ProcessConfig = c.ProcessConfig.WithDefaults(processDefaults)
	if c.MaxInterrupts == 0 {
		c.MaxInterrupts = driver.DefaultMaxInterrupts
	}
	return c
}

// Validate reports every problem of c at once, wrapping
// lux.ErrInvalidConfig.
func (c *Config) Validate() error {
	var p lux.Problems
	c.ProcessConfig.Validate(&p, processDefaults)
	if strings.ContainsAny(c.Model, " \t\r\n") {
		p.AddFix("model", fmt.Sprintf("%q contains white space", c.Model), "give an alias such as sonnet or a model id such as claude-sonnet-4-5")
	}
	if c.Effort != "" && !slices.Contains(efforts, c.Effort) {
		p.AddFix("effort", fmt.Sprintf("unknown effort %q", c.Effort), "use one of "+strings.Join(efforts, ", "))
	}
	if c.PermissionMode != "" && !slices.Contains(permissionModes, c.PermissionMode) {
		p.AddFix("permissionMode", fmt.Sprintf("unknown permission mode %q", c.PermissionMode), "use one of "+strings.Join(permissionModes, ", "))
	}
	nonBlank := func(field string, list []string) {
		for i, s := range list {
			if strings.TrimSpace(s) == "" {
				p.AddFix(fmt.Sprintf("%s[%d]", field, i), "is blank", "remove it")
			}
		}
	}
	nonBlank("allowedTools", c.AllowedTools)
	nonBlank("disallowedTools", c.DisallowedTools)
	nonBlank("pluginDirs", c.PluginDirs)
	nonBlank("addDirs", c.AddDirs)
	switch {
	case c.Settings != "" && strings.TrimSpace(c.Settings) == "":
		p.AddFix("settings", "is blank", "give the path of a settings file, or leave it out")
	case inlineSettings(c.Settings):
		var obj map[string]any
		for _, e := range lux.ProblemsOf(lux.DecodeConfig(json.RawMessage(c.Settings), &obj)) {
			var fe *lux.FieldError
			if errors.As(e, &fe) {
				p.AddFix(naming.Join("settings", fe.Path), fe.Problem, "give a settings file's path, or a JSON object")
			}
		}
	}
	if c.Agent != "" && strings.TrimSpace(c.Agent) == "" {
		p.AddFix("agent", "is blank", "name an agent, or leave it out")
	}
	if c.MaxTurns < 0 {
		p.AddFix("maxTurns", fmt.Sprintf("must not be negative, got %d", c.MaxTurns), "leave it out for no limit")
	}
	for i, arg := range c.ExtraArgs {
		flag, _, _ := strings.Cut(arg, "=")
		field, managed := managedFlags[flag]
		switch {
		case !managed:
		case field != "":
			p.AddFix(fmt.Sprintf("extraArgs[%d]", i), fmt.Sprintf("%s is set by the config", flag), fmt.Sprintf("use the %q field instead", field))
		default:
			p.AddFix(fmt.Sprintf("extraArgs[%d]", i), fmt.Sprintf("%s is managed by the driver", flag), "remove it: the driver runs the CLI with stream-json input and output, one session per run")
		}
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.AddFix("baseUrl", fmt.Sprintf("%q is not an http or https URL", c.BaseURL), "give a URL such as http://127.0.0.1:8080, or leave it out for the Anthropic API")
		}
		if _, set := c.Env["ANTHROPIC_BASE_URL"]; set {
			p.AddFix("env.ANTHROPIC_BASE_URL", "is set as well as baseUrl", "set one of them")
		}
	}
	if c.APIKeyEnv != "" {
		if !driver.ValidEnvName(c.APIKeyEnv) {
			p.AddFix("apiKeyEnv", fmt.Sprintf("%q is not a variable name", c.APIKeyEnv), "name a variable of this process's environment, such as ANTHROPIC_API_KEY")
		}
		if _, set := c.Env["ANTHROPIC_API_KEY"]; set {
			p.AddFix("env.ANTHROPIC_API_KEY", "is set as well as apiKeyEnv", "set one of them")
		}
	}
	if c.MaxInterrupts < 0 {
		p.AddFix("maxInterrupts", fmt.Sprintf("must not be negative, got %d", c.MaxInterrupts), fmt.Sprintf("leave it out for %d", driver.DefaultMaxInterrupts))
	}
	return p.Err(lux.ErrInvalidConfig)
}

// command is the executable to run.
func (c *Config) command() string { return c.ProcessConfig.WithDefaults(processDefaults).Command }

// Runtime declares the CLI the driver launches and what it can do: ask
// questions, ask for approvals, report tool events, usage and cost.
func (c *Config) Runtime() lux.Runtime {
	return lux.Runtime{
		Commands:     []string{c.command()},
		Versioned:    []string{c.command()},
		Capabilities: []lux.Capability{lux.CanAsk, lux.CanApprove, lux.ReportsTools, lux.ReportsUsage, lux.ReportsCost},
		Model:        c.Model,
		InstallHint:  InstallHint,
	}
}

// clone returns a deep copy of c.
func (c *Config) clone() *Config {
	out := *c
	out.ProcessConfig = c.ProcessConfig.Clone()
	out.AllowedTools = slices.Clone(c.AllowedTools)
	out.DisallowedTools = slices.Clone(c.DisallowedTools)
	out.PluginDirs = slices.Clone(c.PluginDirs)
	out.AddDirs = slices.Clone(c.AddDirs)
	out.ExtraArgs = slices.Clone(c.ExtraArgs)
	return &out
}
