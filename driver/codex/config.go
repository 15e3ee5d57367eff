package codex

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/naming"
)

// Mode is how the driver runs the CLI.
type Mode string

// The modes.
const (
	// ModeExec runs `codex exec --json`: one non-interactive turn. The
	// agent cannot ask questions or have actions approved.
	ModeExec Mode = "exec"
	// ModeAppServer runs `codex app-server` and drives one turn over its
	// JSON-RPC protocol on stdio, answering the CLI's questions and
	// approval requests through the run's answerer.
	ModeAppServer Mode = "app-server"
)

// Defaults of the config fields.
const (
	DefaultCommand    = "codex"
	DefaultMode       = ModeExec
	DefaultModel      = "gpt-5.5"
	DefaultSandbox    = "workspace-write"
	DefaultProviderID = "lux"
	// InstallHint tells a user how to install the CLI.
	InstallHint = "npm install -g @openai/codex"
)

// processDefaults are the driver's defaults of driver.ProcessConfig: the
// host environment inherited, an idle timeout of
// driver.DefaultCLIIdleTimeout.
var processDefaults = driver.CLIDefaults(DefaultCommand, map[string]string{
	"CODEX_HOME": "each run gets its own CODEX_HOME in the run directory; use authFile to bring credentials",
})

// The values the CLI accepts.
var (
	sandboxModes     = []string{"read-only", "workspace-write", "danger-full-access"}
	approvalPolicies = []string{"untrusted", "on-request", "never"}
	reasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}
)

// Config configures the codex driver. The zero value of every field means
// its default; Parse fills the defaults in, so a parsed config shows every
// setting that shaped the run.
type Config struct {
	// ProcessConfig is the command, env, inheritEnv and idleTimeout
	// fields, as every process driver reads them, with the defaults of
	// an agent CLI (see driver.CLIDefaults). When InheritEnv is false the
	// agent gets none of the host's environment but the variable named
	// by provider.envKey, so that the key need not be written in a
	// config: PATH is driver.DefaultPath, HOME is the run's CODEX_HOME,
	// and Env adds the rest.
	driver.ProcessConfig
	// Mode is "exec" (default) or "app-server"; see the package
	// documentation for what each can do.
	Mode Mode `json:"mode,omitempty"`
	// Model is the model slug. Default "gpt-5.5", which the CLI's bundled
	// catalog knows (an unknown slug works but loses the apply_patch tool).
	Model string `json:"model,omitempty"`
	// Provider points the CLI at an OpenAI Responses API endpoint of your
	// choice (a proxy, a scripted model server). Nil uses the CLI's
	// built-in OpenAI provider and its own credentials.
	Provider *Provider `json:"provider,omitempty"`
	// Sandbox is the CLI's sandbox for model-generated commands:
	// "read-only", "workspace-write" (default) or "danger-full-access".
	Sandbox string `json:"sandbox,omitempty"`
	// ApprovalPolicy is when the CLI asks before acting: "untrusted",
	// "on-request" or "never". Exec mode cannot ask, so it only takes
	// "never" (its default); app-server mode defaults to "on-request".
	ApprovalPolicy string `json:"approvalPolicy,omitempty"`
	// ReasoningEffort is "none", "minimal", "low", "medium", "high" or
	// "xhigh"; empty leaves the model's default.
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// Overrides are extra CLI settings, each passed as `-c key=value`: the
	// key is a dotted path into the CLI's config.toml
	// (e.g. "model_verbosity" or "shell_environment_policy.inherit") and
	// the value is any JSON value but null, written as TOML.
	Overrides map[string]any `json:"config,omitempty"`
	// ExtraArgs are appended to the command line.
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// AuthFile is a Codex auth.json to copy into the run's CODEX_HOME, for
	// the built-in OpenAI provider with a ChatGPT login.
	AuthFile string `json:"authFile,omitempty"`
	// KeepHome keeps the run's whole CODEX_HOME (session database, logs)
	// in the run directory, but for the copied auth.json and the shell
	// snapshots (which hold the agent's environment, keys included); by
	// default only its config.toml is kept.
	KeepHome bool `json:"keepHome,omitempty"`
	// MaxInterrupts is how many questions and approval requests a run may
	// raise before it fails with max-interactions (app-server). Default
	// driver.DefaultMaxInterrupts (20).
	MaxInterrupts int `json:"maxInterrupts,omitempty"`
}

// Provider is an OpenAI Responses API endpoint, declared to the CLI as a
// model provider.
type Provider struct {
	// ID names the provider in the CLI's config (model_providers.<id>).
	// Default "lux".
	ID string `json:"id,omitempty"`
	// BaseURL is the API's base URL, ending before /responses, e.g.
	// "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1". Required.
	BaseURL string `json:"baseURL"`
	// EnvKey names the environment variable holding the API key, sent as
	// a bearer token: set it in this process's environment (it reaches the
	// CLI even when the host environment is not inherited) rather than in
	// Env, which is recorded with the config. Empty sends no Authorization
	// header.
	EnvKey string `json:"envKey,omitempty"`
	// RequestMaxRetries and StreamMaxRetries bound the CLI's retries of a
	// failed request and of a dropped stream. Nil leaves the CLI's default.
	RequestMaxRetries *int `json:"requestMaxRetries,omitempty"`
	StreamMaxRetries  *int `json:"streamMaxRetries,omitempty"`
}

var (
	bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// reservedProviders are the CLI's built-in provider ids, which a
	// config cannot redefine.
	reservedProviders = []string{"openai", "ollama", "lmstudio", "oss"}
	// ownedKeys are settings the driver writes from dedicated fields.
	ownedKeys = map[string]string{
		"model":                  "model",
		"model_provider":         "provider",
		"model_providers":        "provider",
		"sandbox_mode":           "sandbox",
		"approval_policy":        "approvalPolicy",
		"model_reasoning_effort": "reasoningEffort",
	}
	// ownedFlags are command-line flags the driver passes itself.
	ownedFlags = map[Mode][]string{
		ModeExec: {"--json", "-m", "--model", "-s", "--sandbox", "-C", "--cd", "--color",
			"--ephemeral", "-p", "--profile", "--ignore-user-config", "-o", "--output-last-message"},
		ModeAppServer: {"--listen", "--stdio"},
	}
)

// Parse decodes a JSON config strictly, validates it and fills in the
// defaults. Every problem is reported at once with its field path; the
// error wraps lux.ErrInvalidConfig.
func Parse(raw json.RawMessage) (*Config, error) {
	c := &Config{}
	if err := lux.DecodeConfig(raw, c, c.Validate); err != nil {
		return nil, fmt.Errorf("codex: %w", err)
	}
	*c = c.withDefaults()
	return c, nil
}

// withDefaults returns c with every field left out set to its default.
// Provider is copied when it gets a default ID.
func (c Config) withDefaults() Config {
	c.ProcessConfig = c.ProcessConfig.WithDefaults(processDefaults)
	if c.Mode == "" {
		c.Mode = DefaultMode
	}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Sandbox == "" {
		c.Sandbox = DefaultSandbox
	}
	if c.ApprovalPolicy == "" {
		c.ApprovalPolicy = "never"
		if c.Mode == ModeAppServer {
			c.ApprovalPolicy = "on-request"
		}
	}
	if c.MaxInterrupts == 0 {
		c.MaxInterrupts = driver.DefaultMaxInterrupts
	}
	if c.Provider != nil && c.Provider.ID == "" {
		pr := *c.Provider
		pr.ID = DefaultProviderID
		c.Provider = &pr
	}
	return c
}

// Validate reports every problem of c, with its defaults filled in, at
// once, wrapping lux.ErrInvalidConfig.
func (c *Config) Validate() error {
	d := c.withDefaults()
	return d.validate()
}

func (c *Config) validate() error {
	var p lux.Problems
	c.ProcessConfig.Validate(&p, processDefaults)
	if c.Mode != ModeExec && c.Mode != ModeAppServer {
		p.AddFix("mode", fmt.Sprintf("unknown mode %q", c.Mode), `use "exec" or "app-server"`)
	}
	if strings.TrimSpace(c.Model) == "" {
		p.AddFix("model", "blank", `name a model, e.g. "gpt-5.5"`)
	}
	oneOf(&p, "sandbox", c.Sandbox, sandboxModes)
	oneOf(&p, "approvalPolicy", c.ApprovalPolicy, approvalPolicies)
	if c.Mode == ModeExec && c.ApprovalPolicy != "never" && slices.Contains(approvalPolicies, c.ApprovalPolicy) {
		p.AddFix("approvalPolicy", fmt.Sprintf("%q needs someone to approve, and exec mode cannot ask", c.ApprovalPolicy),
			`use mode "app-server" to have approvals answered, or leave approvalPolicy out`)
	}
	if c.ReasoningEffort != "" {
		oneOf(&p, "reasoningEffort", c.ReasoningEffort, reasoningEfforts)
	}
	if c.Provider != nil {
		c.Provider.validate(&p)
	}
	for _, k := range sortedKeys(c.Overrides) {
		at := naming.Join("config", k)
		switch {
		case strings.TrimSpace(k) == "" || strings.ContainsAny(k, "= \t\n"):
			p.AddFix(at, "not a config key", `use a dotted path such as "shell_environment_policy.inherit"`)
		case ownedKeys[strings.SplitN(k, ".", 2)[0]] != "":
			p.AddFix(at, "set by the driver", fmt.Sprintf("use the %q field instead", ownedKeys[strings.SplitN(k, ".", 2)[0]]))
		default:
			if _, err := tomlValue(c.Overrides[k]); err != nil {
				p.AddFix(at, err.Error(), "use a string, number, boolean, list or object")
			}
		}
	}
	for i, a := range c.ExtraArgs {
		flag, _, _ := strings.Cut(a, "=")
		if slices.Contains(ownedFlags[c.Mode], flag) {
			p.AddFix(fmt.Sprintf("extraArgs[%d]", i), fmt.Sprintf("%s is set by the driver", flag),
				"use the config's own fields (model, sandbox, mode) instead")
		}
	}
	if c.MaxInterrupts < 0 {
		p.AddFix("maxInterrupts", fmt.Sprintf("negative (%d)", c.MaxInterrupts), fmt.Sprintf("leave it out for %d", driver.DefaultMaxInterrupts))
	}
	return p.Err(lux.ErrInvalidConfig)
}

func (pr *Provider) validate(p *lux.Problems) {
	switch {
	case !bareKey.MatchString(pr.ID):
		p.AddFix("provider.id", fmt.Sprintf("%q is not a usable provider id", pr.ID), "use letters, digits, '-' and '_'")
	case slices.Contains(reservedProviders, pr.ID):
		p.AddFix("provider.id", fmt.Sprintf("%q is a built-in provider of the CLI", pr.ID), "choose another id, e.g. \"lux\"")
	}
	if strings.TrimSpace(pr.BaseURL) == "" {
		p.AddFix("provider.baseURL", "required", `give the API's base URL, e.g. "https://api.openai.com/v1"`)
	} else if u, err := url.Parse(pr.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.AddFix("provider.baseURL", fmt.Sprintf("%q is not an http(s) URL", pr.BaseURL), `e.g. "http://127.0.0.1:8080/v1"`)
	}
	if pr.EnvKey != "" && !driver.ValidEnvName(pr.EnvKey) {
		p.AddFix("provider.envKey", fmt.Sprintf("%q is not an environment variable name", pr.EnvKey), `e.g. "OPENAI_API_KEY"`)
	}
	if pr.RequestMaxRetries != nil && *pr.RequestMaxRetries < 0 {
		p.Add("provider.requestMaxRetries", "negative")
	}
	if pr.StreamMaxRetries != nil && *pr.StreamMaxRetries < 0 {
		p.Add("provider.streamMaxRetries", "negative")
	}
}

func oneOf(p *lux.Problems, path, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		p.AddFix(path, fmt.Sprintf("unknown value %q", v), "use one of: "+strings.Join(allowed, ", "))
	}
}

// Runtime declares the command and what the agent can do in this mode:
// exec reports usage and tool events but cannot ask or be approved;
// app-server can ask, and asks for approvals unless the policy is "never".
func (c *Config) Runtime() lux.Runtime {
	caps := []lux.Capability{lux.ReportsUsage, lux.ReportsTools}
	if c.Mode == ModeAppServer {
		caps = append(caps, lux.CanAsk)
		if c.ApprovalPolicy != "never" {
			caps = append(caps, lux.CanApprove)
		}
	}
	return lux.Runtime{
		Commands:     []string{c.Command},
		Versioned:    []string{c.Command},
		Capabilities: caps,
		Model:        c.Model,
		InstallHint:  InstallHint,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
