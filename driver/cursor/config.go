package cursor

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Defaults of Config.
const (
	DefaultCommand      = "cursor-agent"
	DefaultModel        = "auto"
	DefaultResultGrace  = 3 * time.Second
	DefaultMaxLineBytes = 32 << 20
)

// processDefaults are the driver's defaults of driver.ProcessConfig: the
// host environment inherited, an idle timeout of
// driver.DefaultCLIIdleTimeout.
var processDefaults = driver.CLIDefaults(DefaultCommand, nil)

// InstallHint is how to install the CLI (Linux, macOS, WSL). It installs
// cursor-agent (and agent) into ~/.local/bin, which must be on PATH.
const InstallHint = "curl https://cursor.com/install -fsS | bash  (installs cursor-agent into ~/.local/bin; add it to PATH)"

// Approval modes of Config.Approval.
const (
	// ApprovalForce passes --force: every tool call runs unless a
	// permissions.deny rule or team policy forbids it.
	ApprovalForce = "force"
	// ApprovalReject passes nothing: print mode cannot ask, so every call
	// that would need approval (shell commands off the allowlist, MCP,
	// web fetches, writes outside the workspace) is rejected, and the
	// agent carries on.
	ApprovalReject = "reject"
)

// Config configures the cursor driver. The zero value of every field means
// its default. In JSON the field names are the json tags below; unknown
// fields are errors.
type Config struct {
	// ProcessConfig is the command, env, inheritEnv and idleTimeout
	// fields, as every process driver reads them, with the defaults of
	// an agent CLI (see driver.CLIDefaults); the installer also provides
	// the CLI as "agent". When InheritEnv is false the CLI gets only PATH
	// (the system directories), HOME and Env, so a login stored under
	// HOME still works; see APIKeyEnv. The CLI has no heartbeat and a
	// tool call is silent until it completes, so keep IdleTimeout
	// generous.
	driver.ProcessConfig
	// Model is passed as --model. Default "auto", which every plan may
	// use. It is always passed: without it the CLI silently uses the model
	// last chosen interactively.
	Model string `json:"model,omitempty"`
	// Approval is "force" (default) or "reject"; see ApprovalForce and
	// ApprovalReject.
	Approval string `json:"approval,omitempty"`
	// SkipTrust leaves out --trust. The CLI refuses an untrusted
	// workspace without it (exit 1, nothing on stdout) unless --force is
	// passed; set it only for versions before 2026.04, which reject the flag.
	SkipTrust bool `json:"skipTrust,omitempty"`
	// Mode is passed as --mode: "plan" or "ask" make the run read-only
	// (enforced by Cursor's servers). Default: neither.
	Mode string `json:"mode,omitempty"`
	// Sandbox is passed as --sandbox: "enabled" or "disabled". Default:
	// the CLI's own configuration. The sandbox confines shell commands,
	// never the edit tool.
	Sandbox string `json:"sandbox,omitempty"`
	// StreamPartialOutput passes --stream-partial-output. The driver
	// joins the deltas back into whole messages, so the trajectory is the
	// same either way; the flag only makes the agent's text arrive sooner.
	StreamPartialOutput bool `json:"streamPartialOutput,omitempty"`
	// ApproveMCPs passes --approve-mcps, which approves every configured
	// MCP server, the workspace's own .cursor/mcp.json included.
	ApproveMCPs bool `json:"approveMcps,omitempty"`
	// ExtraArgs are passed after the driver's flags and before the prompt.
	// Flags the driver sets itself are refused here.
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// APIKeyEnv names an environment variable of this process whose value
	// the CLI gets as CURSOR_API_KEY, so that no key is written in a
	// config. An unset or empty variable fails the run at start. An empty
	// CURSOR_API_KEY is never passed: the CLI would call it invalid.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// ResultGrace is how long the CLI may take to exit by itself after its
	// result line before its process group is stopped: some versions never
	// exit. Default 3s.
	ResultGrace lux.Duration `json:"resultGrace,omitempty"`
	// KillGrace is the time between SIGTERM and SIGKILL when the CLI's
	// process group is stopped. Default 5s.
	KillGrace lux.Duration `json:"killGrace,omitempty"`
	// MaxArtifactFiles caps how many files are collected from the
	// workspace; more is an error. Default 500.
	MaxArtifactFiles int `json:"maxArtifactFiles,omitempty"`
	// MaxLineBytes caps one stdout line; a longer line fails the run.
	// Tool results are inlined (whole files), so the default is 32 MiB.
	MaxLineBytes int `json:"maxLineBytes,omitempty"`
	// ReportsUsage declares the "usage" capability, so that cases which
	// require it may run. Set it when the CLI is 2026.07 or newer:
	// earlier versions print no token usage. Whatever its value, usage is
	// recorded when the result carries it and recorded as unavailable
	// (never zero) when it does not.
	ReportsUsage bool `json:"reportsUsage,omitempty"`
}

// reserved are the flags the driver sets itself, with what to use instead.
var reserved = []struct {
	flags []string
	fix   string
}{
	{[]string{"-p", "--print"}, "the driver always runs in print mode"},
	{[]string{"--output-format"}, "the driver always reads stream-json"},
	{[]string{"--workspace"}, "the driver runs the CLI in the run's workspace"},
	{[]string{"--model", "-m"}, `use "model"`},
	{[]string{"-f", "--force", "--yolo"}, `use "approval": "force"`},
	{[]string{"--trust"}, `the driver passes --trust unless "skipTrust" is set`},
	{[]string{"--mode", "--plan"}, `use "mode"`},
	{[]string{"--sandbox"}, `use "sandbox"`},
	{[]string{"--stream-partial-output"}, `use "streamPartialOutput": true`},
	{[]string{"--approve-mcps"}, `use "approveMcps": true`},
	{[]string{"--resume", "--continue"}, "each run starts a new chat; resuming is not supported"},
	{[]string{"--api-key", "--auth-token"}, `a secret does not belong in a config: use "apiKeyEnv"`},
	{[]string{"--auto-review"}, "auto-review asks for approvals that print mode can only reject"},
	{[]string{"-c", "--cloud"}, "cloud runs leave the workspace; not supported"},
	{[]string{"-w", "--worktree", "--worktree-base", "--skip-worktree-setup"}, "the driver runs the CLI in the run's workspace"},
	{[]string{"--"}, "the driver puts the prompt after its own --"},
}

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	c.ProcessConfig = c.ProcessConfig.WithDefaults(processDefaults)
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Approval == "" {
		c.Approval = ApprovalForce
	}
	if c.ResultGrace == 0 {
		c.ResultGrace = lux.Duration(DefaultResultGrace)
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.KillGrace == 0 {
		c.KillGrace = lux.Duration(driver.DefaultKillGrace)
	}
	if c.MaxArtifactFiles == 0 {
		c.MaxArtifactFiles = driver.DefaultMaxArtifactFiles
	}
	return c
}

// Validate returns every problem with c, each with its field path and how
// to fix it, wrapping lux.ErrInvalidConfig; nil when c is usable.
func (c *Config) Validate() error {
	var p lux.Problems
	c.ProcessConfig.Validate(&p, processDefaults)
	switch c.Approval {
	case "", ApprovalForce, ApprovalReject:
	default:
		p.AddFix("approval", fmt.Sprintf("unknown approval %q", c.Approval), `use "force" or "reject"`)
	}
	switch c.Mode {
	case "", "plan", "ask":
	default:
		p.AddFix("mode", fmt.Sprintf("unknown mode %q", c.Mode), `use "plan", "ask", or leave it out for the default agent mode`)
	}
	switch c.Sandbox {
	case "", "enabled", "disabled":
	default:
		p.AddFix("sandbox", fmt.Sprintf("unknown sandbox setting %q", c.Sandbox), `use "enabled" or "disabled", or leave it out`)
	}
	for i, arg := range c.ExtraArgs {
		flag, _, _ := strings.Cut(arg, "=")
		for _, r := range reserved {
			for _, f := range r.flags {
				if flag == f {
					p.AddFix(fmt.Sprintf("extraArgs[%d]", i), fmt.Sprintf("%s is set by the driver", f), r.fix)
				}
			}
		}
	}
	if _, set := c.Env["CURSOR_API_KEY"]; set && c.APIKeyEnv != "" {
		p.AddFix("env.CURSOR_API_KEY", "conflicts with apiKeyEnv", "set one of them")
	}
	if c.APIKeyEnv != "" && !driver.ValidEnvName(c.APIKeyEnv) {
		p.AddFix("apiKeyEnv", fmt.Sprintf("%q is not an environment variable name", c.APIKeyEnv), "name the variable that holds the key, e.g. \"CURSOR_API_KEY\"")
	}
	if c.ResultGrace < 0 {
		p.AddFix("resultGrace", "must not be negative", `use a duration such as "3s"`)
	}
	if c.KillGrace < 0 {
		p.AddFix("killGrace", "must not be negative", `use a duration such as "5s"`)
	}
	if c.MaxArtifactFiles < 0 {
		p.AddFix("maxArtifactFiles", "must not be negative", "leave it out for 500")
	}
	if c.MaxLineBytes < 0 {
		p.AddFix("maxLineBytes", "must not be negative", "leave it out for 32 MiB")
	}
	return p.Err(lux.ErrInvalidConfig)
}

// Parse decodes a cursor driver config strictly, validates it and fills
// in the defaults.
func Parse(raw json.RawMessage) (*Config, error) {
	c := &Config{}
	if err := lux.DecodeConfig(raw, c, c.Validate); err != nil {
		return nil, fmt.Errorf("cursor: %w", err)
	}
	*c = c.withDefaults()
	return c, nil
}

// Runtime declares the CLI and what it can do: it reports tool calls, and
// its token usage only when the config says the CLI does. Print mode is
// non-interactive, so it neither asks questions nor asks for approval.
func (d *Config) Runtime() lux.Runtime {
	caps := []lux.Capability{lux.ReportsTools}
	if d.ReportsUsage {
		caps = append(caps, lux.ReportsUsage)
	}
	return lux.Runtime{
		Commands:     []string{d.Command},
		Versioned:    []string{d.Command},
		Capabilities: caps,
		Model:        d.Model,
		InstallHint:  InstallHint,
	}
}

// args is the command line after the command: print mode, stream-json,
// the flags of the config, the workspace, ExtraArgs, then the prompt after --.
func (d *Config) args(workspace, prompt string) []string {
	a := []string{"-p", "--output-format", "stream-json", "--model", d.Model}
	if !d.SkipTrust {
		a = append(a, "--trust")
	}
	if d.Approval == ApprovalForce {
		a = append(a, "--force")
	}
	if d.Mode != "" {
		a = append(a, "--mode", d.Mode)
	}
	if d.Sandbox != "" {
		a = append(a, "--sandbox", d.Sandbox)
	}
	if d.StreamPartialOutput {
		a = append(a, "--stream-partial-output")
	}
	if d.ApproveMCPs {
		a = append(a, "--approve-mcps")
	}
	a = append(a, "--workspace", workspace)
	a = append(a, d.ExtraArgs...)
	return append(a, "--", prompt)
}
