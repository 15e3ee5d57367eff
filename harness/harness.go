package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/naming"
)

// Model is one text-model call. Implementations must be safe for
// concurrent use and return within ctx's lifetime.
type Model interface {
	// Complete answers req. An error means there is no answer: the CLI
	// failed, timed out or said something that is not an answer.
	Complete(ctx context.Context, req Request) (Response, error)
	// Name identifies the model as "provider:model", e.g.
	// "claude-code:claude-haiku-4-5"; records show it.
	Name() string
}

// Request is one call: the instructions and the text to answer.
type Request struct {
	System string
	Prompt string
}

// Response is a model's answer.
type Response struct {
	Text  string
	Usage lux.TokenUsage
	// CostUSD is the cost the provider reported; nil means unpriced.
	CostUSD *float64
	// Model is the model that answered, as the provider reported it (or
	// the model asked for when it reports none).
	Model string
}

// Factory builds a Model from a validated Config. New is the built-in one.
type Factory func(Config) (Model, error)

// The built-in providers.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Default models and timeout.
const (
	DefaultClaudeModel = "claude-haiku-4-5"
	DefaultCodexModel  = "gpt-5.4-mini"
	DefaultTimeout     = 2 * time.Minute
)

// Efforts are the accepted values of Config.Effort.
var Efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}

// Config selects and tunes a harness model. The zero value is Claude Code
// with its default model.
type Config struct {
	// Provider is "claude-code" (default) or "codex", or a name a custom
	// Factory knows.
	Provider string `json:"provider,omitempty"`
	// Model is the provider's model; empty means the provider's default.
	Model string `json:"model,omitempty"`
	// Command is the CLI to run, a name looked up in PATH or a path;
	// default "claude" or "codex".
	Command string `json:"command,omitempty"`
	// Effort is the reasoning effort: none, minimal, low (default),
	// medium, high or xhigh.
	Effort string `json:"effort,omitempty"`
	// Timeout bounds each call; default 2m.
	Timeout lux.Duration `json:"timeout,omitempty"`
	// Env adds variables to the CLI's environment, which otherwise is this
	// process's (e.g. ANTHROPIC_BASE_URL for a proxy).
	Env map[string]string `json:"env,omitempty"`
	// Args are extra flags for the CLI, e.g. Codex's -c flags that choose
	// a model provider.
	Args []string `json:"args,omitempty"`
	// UserConfig runs the CLI with the user's own config directory (and so
	// the user's login) instead of a fresh one.
	UserConfig bool `json:"userConfig,omitempty"`
}

// Fields are the JSON names of Config's fields, which plugin configs that
// embed a Config share.
var Fields = []string{"provider", "model", "command", "effort", "timeout", "env", "args", "userConfig"}

// providerFields are the fields that belong to one provider and are not
// carried over to another.
var providerFields = []string{"model", "command", "effort", "env", "args", "userConfig"}

// WithDefaults returns c with the provider, model and timeout filled in.
func (c Config) WithDefaults() Config {
	if c.Provider == "" {
		c.Provider = ClaudeCode
	}
	if c.Model == "" {
		switch c.Provider {
		case ClaudeCode:
			c.Model = DefaultClaudeModel
		case Codex:
			c.Model = DefaultCodexModel
		}
	}
	if c.Timeout <= 0 {
		c.Timeout = lux.Duration(DefaultTimeout)
	}
	return c
}

// Validate reports every problem of c, with its field path under prefix
// (e.g. "harness"), into p. Providers other than the built-in ones are
// accepted only when custom is true (a custom Factory is in use).
func (c Config) Validate(p *lux.Problems, prefix string, custom bool) {
	at := func(f string) string { return naming.Join(prefix, f) }
	if c.Provider != "" && c.Provider != ClaudeCode && c.Provider != Codex && !custom {
		p.AddFix(at("provider"), fmt.Sprintf("unknown provider %q", c.Provider), `use "claude-code" or "codex"`)
	}
	if c.Effort != "" && !slices.Contains(Efforts, c.Effort) {
		p.AddFix(at("effort"), fmt.Sprintf("unknown effort %q", c.Effort), "use one of "+strings.Join(Efforts, ", "))
	}
	if c.Timeout < 0 {
		p.AddFix(at("timeout"), "must be positive", `e.g. "2m"`)
	}
	if strings.TrimSpace(c.Command) != c.Command {
		p.Add(at("command"), "must not start or end with spaces")
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			p.Addf(at("env"), "invalid variable name %q", k)
		}
	}
}

// Inherit merges a plugin's own JSON config (local, an object holding
// harness fields among others) over the project's harness config (parent):
// the fields local sets win; the others come from parent, except that when
// local names a provider other than parent's, parent's model, command,
// effort, env, args and userConfig are dropped. Fields of local that are not
// harness fields are kept as they are. A nil parent returns local.
func Inherit(parent, local json.RawMessage) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(parent))) == 0 || strings.TrimSpace(string(parent)) == "null" {
		return local, nil
	}
	var base map[string]json.RawMessage
	if err := json.Unmarshal(parent, &base); err != nil {
		return nil, fmt.Errorf("harness: the project's harness config is not a JSON object: %v", err)
	}
	own := map[string]json.RawMessage{}
	if len(strings.TrimSpace(string(local))) > 0 && strings.TrimSpace(string(local)) != "null" {
		if err := json.Unmarshal(local, &own); err != nil {
			return local, nil // the plugin's strict decoding reports it
		}
	}
	var pp, lp string
	_ = json.Unmarshal(base["provider"], &pp)
	_, setsProvider := own["provider"]
	_ = json.Unmarshal(own["provider"], &lp)
	switched := setsProvider && normProvider(lp) != normProvider(pp)
	for _, f := range Fields {
		v, ok := base[f]
		if !ok {
			continue
		}
		if _, mine := own[f]; mine {
			continue
		}
		if switched && (f == "provider" || slices.Contains(providerFields, f)) {
			continue
		}
		own[f] = v
	}
	return json.Marshal(own)
}

func normProvider(p string) string {
	if p == "" {
		return ClaudeCode
	}
	return p
}

// New builds a built-in provider's Model from c (defaults applied).
func New(c Config) (Model, error) {
	c = c.WithDefaults()
	switch c.Provider {
	case ClaudeCode:
		return &claude{cfg: c}, nil
	case Codex:
		return &codex{cfg: c}, nil
	}
	return nil, fmt.Errorf("harness: unknown provider %q (use %q or %q, or give the plugin a Factory of your own)", c.Provider, ClaudeCode, Codex)
}

// Build validates c (with the problems' paths under prefix, into a plugin's
// config error), fills its defaults and makes its model with f, or with
// New when f is nil: the one way persona, rubric and any plugin of yours
// turn their harness fields into a Model.
func Build(f Factory, c Config, p *lux.Problems) (Config, Model) {
	c.Validate(p, "", f != nil)
	if p.Len() > 0 {
		return c, nil
	}
	if f == nil {
		f = New
	}
	c = c.WithDefaults()
	m, err := f(c)
	switch {
	case err != nil:
		p.Add("provider", err.Error())
	case m == nil:
		p.Add("provider", "the harness factory returned no model")
	}
	return c, m
}
