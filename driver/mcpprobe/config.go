package mcpprobe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/naming"
)

// Defaults of the config fields.
const (
	DefaultStartupTimeout  = 30 * time.Second
	DefaultStepTimeout     = 60 * time.Second
	DefaultMaxListPages    = 100
	DefaultMaxMessageBytes = 10_000_000
)

// The probe step operations.
const (
	OpListTools = "list-tools" // tools/list, every page
	OpCall      = "call"       // tools/call of one tool
)

// The placeholders expanded in args, env values, cwd and headers.
const (
	PlaceholderArtifactsDir = "${ARTIFACTS_DIR}" // the run's workspace
	PlaceholderRunDir       = "${RUN_DIR}"       // the run's record directory
)

// Config is the mcp-probe driver's config, as JSON (in Go, a Config whose
// fields are left zero gets the defaults once encoded in a PluginRef). A server the driver
// starts (stdio):
//
//	{"command": "./my-server", "args": ["--root", "${ARTIFACTS_DIR}"], "inheritEnv": ["API_TOKEN"],
//	 "probe": [{"op": "list-tools"}, {"op": "call", "tool": "add", "args": {"a": 2, "b": 3}}]}
//
// A server that already runs (streamable HTTP):
//
//	{"url": "http://127.0.0.1:8080/mcp", "headersFromEnv": {"Authorization": "MCP_AUTH"}, "probe": [...]}
type Config struct {
	// Command is the server's executable, for a server spoken to over
	// stdio: a path (relative to the directory of the case file, as its
	// fixtures are; see driver.CommandPath) or a name on the harness's
	// PATH. Exactly one of Command and URL is set.
	Command string `json:"command,omitempty"`
	// Args are the server's arguments.
	Args []string `json:"args,omitempty"`
	// Cwd is the server's working directory, relative to the workspace;
	// default the workspace.
	Cwd string `json:"cwd,omitempty"`
	// Env is added to the server's environment.
	Env map[string]string `json:"env,omitempty"`
	// InheritEnv is which variables of the harness's environment the
	// server gets, in the shape inheritEnv has everywhere in lux: true
	// (all of them), false (none; the default) or a list of names
	// (secrets by name, never frozen into the case). Besides them the
	// server gets Env and, unless either sets it,
	// PATH=/usr/local/bin:/usr/bin:/bin.
	InheritEnv InheritEnv `json:"inheritEnv,omitzero"`

	// URL is the endpoint of a server that already runs, spoken to over
	// streamable HTTP.
	URL string `json:"url,omitempty"`
	// Headers are sent with every HTTP request.
	Headers map[string]string `json:"headers,omitempty"`
	// HeadersFromEnv maps a header to the name of a harness environment
	// variable holding its value, for credentials.
	HeadersFromEnv map[string]string `json:"headersFromEnv,omitempty"`

	// Probe is the steps to run, in order. Default: one list-tools.
	Probe []Step `json:"probe,omitempty"`
	// StartupTimeout bounds the start of the server and the initialize
	// handshake. Default 30s.
	StartupTimeout lux.Duration `json:"startupTimeout,omitempty"`
	// StepTimeout bounds each step (all pages of a list-tools). Default 60s.
	StepTimeout lux.Duration `json:"stepTimeout,omitempty"`
	// MaxListPages caps the pages of one list-tools. Default 100.
	MaxListPages int `json:"maxListPages,omitempty"`
	// MaxMessageBytes caps one JSON-RPC message from a stdio server.
	// Default 10,000,000.
	MaxMessageBytes int `json:"maxMessageBytes,omitempty"`
}

// Step is one probe step: {"op": "list-tools"}, or {"op": "call", "tool":
// "add", "args": {"a": 1}}.
type Step struct {
	Op   string `json:"op"`
	Tool string `json:"tool,omitempty"`
	Args Args   `json:"args,omitempty"`
}

// Args are the arguments of a call. Decoded from JSON, their numbers are
// json.Numbers that keep the digits as written, so the probe sends, and
// the record keeps, what the case says: as a float64, 9007199254740993
// would become 9007199254740992 and 1.10 would become 1.1.
type Args map[string]any

// UnmarshalJSON decodes an object, keeping its numbers as written.
func (a *Args) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return err
	}
	*a = m
	return nil
}

// defaults is the config before decoding: every default filled in, so the
// config a run records (and hashes) says what ran.
func defaults() Config {
	return Config{
		Probe:           []Step{{Op: OpListTools}},
		StartupTimeout:  lux.Duration(DefaultStartupTimeout),
		StepTimeout:     lux.Duration(DefaultStepTimeout),
		MaxListPages:    DefaultMaxListPages,
		MaxMessageBytes: DefaultMaxMessageBytes,
	}
}

// InheritEnv is the inheritEnv field: JSON true (All), false (the zero
// value: none) or a list of variable names (Names). It is the shape of
// the field everywhere in lux; the agent drivers' driver.ProcessConfig
// takes its true and false forms.
type InheritEnv struct {
	All   bool
	Names []string
}

// UnmarshalJSON reads true, false or a list of names.
func (e *InheritEnv) UnmarshalJSON(b []byte) error {
	var all bool
	if err := json.Unmarshal(b, &all); err == nil {
		*e = InheritEnv{All: all}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return errors.New("must be true (the whole environment), false (none) or a list of variable names")
	}
	*e = InheritEnv{Names: names}
	return nil
}

// MarshalJSON writes the form it was read from (false for the zero value).
func (e InheritEnv) MarshalJSON() ([]byte, error) {
	if e.All {
		return []byte("true"), nil
	}
	if e.Names == nil {
		return []byte("false"), nil
	}
	return json.Marshal(e.Names)
}

// Parse decodes and validates a config strictly: unknown fields and every
// invalid value are reported together, each with its field path and a fix.
func Parse(raw json.RawMessage) (*Config, error) {
	cfg := defaults()
	if err := lux.DecodeConfig(raw, &cfg, cfg.Validate); err != nil {
		return nil, fmt.Errorf("mcp-probe: %w", err)
	}
	return &cfg, nil
}

// Validate reports every problem with c; nil when it is usable.
func (c *Config) Validate() error {
	var p lux.Problems
	command, address := strings.TrimSpace(c.Command) != "", strings.TrimSpace(c.URL) != ""
	switch {
	case command && address:
		p.AddFix("url", "cannot be combined with command", "give command for a server the driver starts (stdio), url for one that already runs (streamable HTTP)")
	case !command && !address:
		p.AddFix("command", "required (or url)", `set it to the server's executable, e.g. "./my-server" or "npx", or set url to a running server's endpoint`)
	}
	noNUL(&p, "command", c.Command)
	for i, a := range c.Args {
		noNUL(&p, fmt.Sprintf("args[%d]", i), a)
	}
	noNUL(&p, "cwd", c.Cwd)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		at := naming.Join("env", k)
		if !validName(k) {
			p.AddFix(at, "not a valid variable name", `use a name without "=" or NUL`)
		}
		noNUL(&p, at, c.Env[k])
	}
	for i, k := range c.InheritEnv.Names {
		if !validName(k) {
			p.AddFix(fmt.Sprintf("inheritEnv[%d]", i), fmt.Sprintf("%q is not a valid variable name", k), `name a variable of the harness's environment, e.g. "API_TOKEN"`)
		}
	}
	if address {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.AddFix("url", fmt.Sprintf("%q is not an http or https URL", c.URL), `give the server's endpoint, e.g. "http://127.0.0.1:8080/mcp"`)
		}
	}
	if !address && (len(c.Headers) > 0 || len(c.HeadersFromEnv) > 0) {
		p.AddFix("headers", "only for a server reached by url", "remove headers and headersFromEnv, or set url")
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		if !validHeader(k) {
			p.AddFix(naming.Join("headers", k), "not a valid header name", "use letters, digits and dashes")
		} else if strings.ContainsAny(c.Headers[k], "\r\n\x00") {
			p.AddFix(naming.Join("headers", k), "value contains a line break or NUL", "remove it")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.HeadersFromEnv)) {
		if !validHeader(k) {
			p.AddFix(naming.Join("headersFromEnv", k), "not a valid header name", "use letters, digits and dashes")
		}
		if !validName(c.HeadersFromEnv[k]) {
			p.AddFix(naming.Join("headersFromEnv", k), fmt.Sprintf("%q is not a valid variable name", c.HeadersFromEnv[k]), "name the harness variable that holds the header's value")
		}
	}
	if len(c.Probe) == 0 {
		p.AddFix("probe", "has no steps", `give at least one step, e.g. [{"op": "list-tools"}], or omit it for that default`)
	}
	for i, s := range c.Probe {
		at := fmt.Sprintf("probe[%d]", i)
		switch s.Op {
		case OpListTools:
			if s.Tool != "" || s.Args != nil {
				p.AddFix(at, "list-tools takes no tool or args", "remove them, or make the step a call")
			}
		case OpCall:
			if strings.TrimSpace(s.Tool) == "" {
				p.AddFix(at+".tool", "required", "name the tool to call")
			}
		default:
			p.AddFix(at+".op", fmt.Sprintf("must be %q or %q, got %q", OpListTools, OpCall, s.Op), `use {"op": "list-tools"} or {"op": "call", "tool": "...", "args": {...}}`)
		}
	}
	positive(&p, "startupTimeout", c.StartupTimeout, DefaultStartupTimeout)
	positive(&p, "stepTimeout", c.StepTimeout, DefaultStepTimeout)
	if c.MaxListPages < 1 {
		p.AddFix("maxListPages", fmt.Sprintf("must be at least 1, got %d", c.MaxListPages), fmt.Sprintf("omit it for the default %d", DefaultMaxListPages))
	}
	if c.MaxMessageBytes < 1 {
		p.AddFix("maxMessageBytes", fmt.Sprintf("must be at least 1, got %d", c.MaxMessageBytes), fmt.Sprintf("omit it for the default %d", DefaultMaxMessageBytes))
	}
	return p.Err(lux.ErrInvalidConfig)
}

func noNUL(p *lux.Problems, at, v string) {
	if strings.ContainsRune(v, 0) {
		p.AddFix(at, "contains a NUL byte", "remove it")
	}
}

func positive(p *lux.Problems, at string, d lux.Duration, def time.Duration) {
	if d <= 0 {
		p.AddFix(at, fmt.Sprintf("must be positive, got %s", d), fmt.Sprintf("use a duration such as %q, or omit it for the default", def))
	}
}

func validName(k string) bool { return k != "" && !strings.ContainsAny(k, "=\x00") }

func validHeader(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return http.CanonicalHeaderKey(k) != ""
}

// capabilities are what the probe reports: tool calls and their results.
// It never asks or waits for approval.
var capabilities = []lux.Capability{lux.ReportsTools}

// Runtime declares the server's command (none for a server reached by
// URL) and the tool-events capability.
func (c *Config) Runtime() lux.Runtime {
	rt := lux.Runtime{Capabilities: capabilities}
	if c.Command != "" {
		rt.Commands = []string{c.Command}
		rt.Scripts = driver.Scripts(c.Args)
	}
	return rt
}
