package subprocess

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Defaults of the config fields.
const (
	DefaultMaxLineBytes     = 10_000_000
	DefaultMaxArtifactFiles = 500
	// MaxArtifactFilesLimit is the largest maxArtifactFiles accepted.
	MaxArtifactFilesLimit = 250_000
)

// The environment variables the driver gives the agent. They override the
// same names in Config.Env, which is therefore not allowed to set them.
const (
	EnvCaseID       = "LUX_CASE_ID"       // the case id (absent when empty)
	EnvRunDir       = "LUX_RUN_DIR"       // a scratch directory of the run's own, outside the record, removed after it
	EnvArtifactsDir = "LUX_ARTIFACTS_DIR" // the workspace: where the agent's work is collected from
	EnvPrompt       = "LUX_PROMPT"        // the case prompt, when it fits (see MaxEnvPrompt)
	EnvPromptFile   = "LUX_PROMPT_FILE"   // a file holding the case prompt, always
)

// MaxEnvPrompt is the longest prompt, in bytes, given in LUX_PROMPT: the
// kernel refuses an environment entry over 128 KiB. A longer prompt is
// only in the file LUX_PROMPT_FILE names.
const MaxEnvPrompt = 128<<10 - len(EnvPrompt) - 2

// Config is the subprocess driver's config, as JSON:
//
//	{"command": "./my-agent", "args": ["--fast"], "env": {"API_URL": "http://127.0.0.1:8080"},
//	 "idleTimeout": "90s", "maxInterrupts": 5}
type Config struct {
	// ProcessConfig is the command, env, inheritEnv and idleTimeout
	// fields, as every process driver reads them, with the defaults of a
	// lux-jsonl program (see driver.LuxJSONLDefaults). A command name is
	// looked up on Env's PATH first when it sets one, then on the
	// harness's. Without the harness's environment the agent gets only
	// Env, the LUX_* variables and PATH=driver.DefaultPath (unless Env
	// sets PATH): set what the agent needs in Env.
	driver.ProcessConfig
	// Args are the agent's arguments.
	Args []string `json:"args,omitempty"`
	// Cwd is the agent's working directory; relative to the workspace;
	// default the workspace.
	Cwd string `json:"cwd,omitempty"`
	// Timeout is the agent's wall-clock limit from its start ("45m" or
	// milliseconds); past it the run ends with exit reason timeout. Zero,
	// the default, leaves only the orchestrator's limit (the case's
	// timeout, else Options.RunTimeout, 30m by default).
	Timeout lux.Duration `json:"timeout,omitempty"`
	// MaxInterrupts is how many interrupts the run may raise. Default
	// driver.DefaultMaxInterrupts (20).
	MaxInterrupts int `json:"maxInterrupts"`
	// MaxLineBytes caps one stdout line. Default 10,000,000.
	MaxLineBytes int `json:"maxLineBytes"`
	// MaxArtifactFiles caps the files collected from the workspace.
	// Default 500, at most 250,000.
	MaxArtifactFiles int `json:"maxArtifactFiles"`
	// PromptOnStdin also writes the prompt and a newline to the agent's
	// stdin, then closes stdin. The agent then cannot be asked anything:
	// answers go to stdin.
	PromptOnStdin bool `json:"promptOnStdin,omitempty"`
}

// processDefaults are the driver's defaults of driver.ProcessConfig, and
// the variables it sets for every run.
var processDefaults = driver.LuxJSONLDefaults(map[string]string{
	EnvCaseID:       "remove it: the driver sets " + EnvCaseID + " for every run",
	EnvRunDir:       "remove it: the driver sets " + EnvRunDir + " for every run",
	EnvArtifactsDir: "remove it: the driver sets " + EnvArtifactsDir + " for every run",
	EnvPrompt:       "remove it: the driver sets " + EnvPrompt + " for every run",
	EnvPromptFile:   "remove it: the driver sets " + EnvPromptFile + " for every run",
})

// defaults is the config before decoding, with the defaults of the
// driver's own fields, which Parse keeps when the config leaves them out.
func defaults() Config {
	return Config{
		MaxInterrupts:    driver.DefaultMaxInterrupts,
		MaxLineBytes:     DefaultMaxLineBytes,
		MaxArtifactFiles: DefaultMaxArtifactFiles,
	}
}

// Parse decodes and validates a config strictly: unknown fields and every
// invalid value are reported together, each with its field path and a fix.
// Parse fills in every default, so the config a run records (and hashes)
// says what ran.
func Parse(raw json.RawMessage) (*Config, error) {
	cfg := defaults()
	if err := lux.DecodeConfig(raw, &cfg, cfg.Validate); err != nil {
		return nil, fmt.Errorf("subprocess: %w", err)
	}
	cfg.ProcessConfig = cfg.ProcessConfig.WithDefaults(processDefaults)
	return &cfg, nil
}

// Validate reports every problem with c; nil when it is usable.
func (c *Config) Validate() error {
	var p lux.Problems
	c.ProcessConfig.Validate(&p, processDefaults)
	for i, a := range c.Args {
		if strings.ContainsRune(a, 0) {
			p.AddFix(fmt.Sprintf("args[%d]", i), "contains a NUL byte", "remove it")
		}
	}
	if strings.ContainsRune(c.Cwd, 0) {
		p.AddFix("cwd", "contains a NUL byte", "remove it")
	}
	if c.Timeout < 0 {
		p.AddFix("timeout", fmt.Sprintf("must be positive, got %s", c.Timeout), `use a duration such as "45m", or omit it for the orchestrator's limit`)
	}
	if c.MaxInterrupts < 1 {
		p.AddFix("maxInterrupts", fmt.Sprintf("must be at least 1, got %d", c.MaxInterrupts), fmt.Sprintf("omit it for the default %d", driver.DefaultMaxInterrupts))
	}
	if c.MaxLineBytes < 1 {
		p.AddFix("maxLineBytes", fmt.Sprintf("must be at least 1, got %d", c.MaxLineBytes), fmt.Sprintf("omit it for the default %d", DefaultMaxLineBytes))
	}
	if c.MaxArtifactFiles < 1 || c.MaxArtifactFiles > MaxArtifactFilesLimit {
		p.AddFix("maxArtifactFiles", fmt.Sprintf("must be between 1 and %d, got %d", MaxArtifactFilesLimit, c.MaxArtifactFiles),
			fmt.Sprintf("omit it for the default %d", DefaultMaxArtifactFiles))
	}
	return p.Err(lux.ErrInvalidConfig)
}

// capabilities are what lux-jsonl can carry.
var capabilities = []lux.Capability{
	lux.CanAsk, lux.CanApprove, lux.CanCustom, lux.ReportsUsage, lux.ReportsCost, lux.ReportsTools,
}

// Runtime declares the command and what the lux-jsonl protocol can carry.
// With promptOnStdin the agent's stdin is closed after the prompt, so it
// cannot receive answers: it declares no interrupt capabilities.
func (c *Config) Runtime() lux.Runtime {
	var caps []lux.Capability
	for _, cp := range capabilities {
		if c.PromptOnStdin && (cp == lux.CanAsk || cp == lux.CanApprove || cp == lux.CanCustom) {
			continue
		}
		caps = append(caps, cp)
	}
	return lux.Runtime{Commands: []string{c.Command}, Capabilities: caps, Scripts: driver.Scripts(c.Args), SearchPath: c.searchPath()}
}
