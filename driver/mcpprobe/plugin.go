package mcpprobe

import (
	"context"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Name is the driver's registered name.
const Name = "mcp-probe"

// ExperimentVersion is the version of the driver's behaviour in controlled
// experiments.
const ExperimentVersion = "1"

// Plugin returns the mcp-probe driver, ready to register.
func Plugin() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name:       Name,
		Doc:        "probes an MCP server (stdio or streamable HTTP): lists its tools and calls them, without a model",
		Parse:      driver.Parser(Parse),
		Experiment: driver.Experiment("mcp-probe", ExperimentVersion, prepare, identity),
		// Expanded by the probe at each run; see PlaceholderArtifactsDir.
		RunVariables: []string{"ARTIFACTS_DIR", "RUN_DIR"},
	}
}

// prepare makes the controlled-experiment config. The probe never
// inherits the host's environment beyond the variables it names, so the
// config is already controlled: prepare validates a copy.
func prepare(c *Config) (*Config, error) {
	out := *c
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("mcp-probe: prepare: %w", err)
	}
	return &out, nil
}

// Identity is what shapes the server's behaviour beyond the config: the
// executable and the files its arguments name (a script, say), by content.
// A server reached by URL has only its URL.
type Identity struct {
	Command string            `json:"command,omitempty"`
	Path    string            `json:"path,omitempty"`
	SHA256  string            `json:"sha256,omitempty"` // of the executable
	Files   map[string]string `json:"files,omitempty"`  // argument -> SHA-256 of the file it names
	URL     string            `json:"url,omitempty"`
}

func identity(_ context.Context, c *Config, _ string) (any, error) {
	if c.URL != "" {
		return Identity{URL: c.URL}, nil
	}
	path, err := driver.ResolveCommand(c.Command)
	if err != nil {
		return nil, fmt.Errorf("mcp-probe: identity: %w", err)
	}
	sum, err := driver.HashFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcp-probe: identity: %w", err)
	}
	id := Identity{Command: c.Command, Path: path, SHA256: sum}
	for _, a := range driver.Scripts(c.Args) {
		h, err := driver.HashFile(a)
		if err != nil {
			return nil, fmt.Errorf("mcp-probe: identity: %w", err)
		}
		if id.Files == nil {
			id.Files = map[string]string{}
		}
		id.Files[a] = h
	}
	return id, nil
}
