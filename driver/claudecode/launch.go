package claudecode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/luxeval/lux/driver"
)

// baseArgs are the flags every run uses; see the package documentation.
var baseArgs = []string{
	"-p",
	"--output-format", "stream-json", "--verbose",
	"--input-format", "stream-json",
	"--permission-prompt-tool", "stdio",
	"--include-partial-messages",
	"--no-session-persistence",
}

// args is the command line after the command. Paths are as resolved by
// paths.
func (c *Config) args(p resolvedPaths) []string {
	args := append([]string(nil), baseArgs...)
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	if c.Effort != "" {
		args = append(args, "--effort", c.Effort)
	}
	if c.PermissionMode != "" {
		args = append(args, "--permission-mode", c.PermissionMode)
	}
	// The list flags take several values; each is given its own flag so
	// that a value never swallows what follows.
	for _, t := range c.AllowedTools {
		args = append(args, "--allowedTools", t)
	}
	for _, t := range c.DisallowedTools {
		args = append(args, "--disallowedTools", t)
	}
	for _, d := range p.pluginDirs {
		args = append(args, "--plugin-dir", d)
	}
	for _, d := range p.addDirs {
		args = append(args, "--add-dir", d)
	}
	if p.settings != "" {
		args = append(args, "--settings", p.settings)
	}
	if c.Agent != "" {
		args = append(args, "--agent", c.Agent)
	}
	if c.MaxTurns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(c.MaxTurns))
	}
	return append(args, c.ExtraArgs...)
}

// runDirs are the directories the CLI gets for one run, outside its
// workspace so that they are never collected as artifacts.
type runDirs struct {
	root   string // holds the others
	config string // CLAUDE_CONFIG_DIR: settings, caches, memory
	tmp    string // TMPDIR: shell output, sockets
	home   string // HOME, when the host environment is not inherited
}

// makeRunDirs creates the run's directories under <runDir>/claude-code.
func makeRunDirs(runDir string) (runDirs, error) {
	root := filepath.Join(runDir, "claude-code")
	d := runDirs{
		root:   root,
		config: filepath.Join(root, "config"),
		tmp:    filepath.Join(root, "tmp"),
		home:   filepath.Join(root, "home"),
	}
	for _, dir := range []string{d.config, d.tmp, d.home} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return runDirs{}, fmt.Errorf("claudecode: %w", err)
		}
	}
	return d, nil
}

// environ is the CLI's environment: the host's (or, when not inherited,
// PATH and HOME), then the variables that keep the CLI hermetic, then the
// API settings, then Env, then the run's config directory.
func (c *Config) environ(d runDirs) ([]string, error) {
	base := map[string]string{}
	if !c.Inherits(processDefaults) {
		base["PATH"] = driver.DefaultPath
		base["HOME"] = d.home
	}
	hermetic := map[string]string{
		"TMPDIR":            d.tmp,
		"DISABLE_TELEMETRY": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
	}
	if c.PermissionMode == "bypassPermissions" {
		hermetic["IS_SANDBOX"] = "1"
	}
	api := map[string]string{}
	if c.BaseURL != "" {
		api["ANTHROPIC_BASE_URL"] = c.BaseURL
	}
	if c.APIKeyEnv != "" {
		key := os.Getenv(c.APIKeyEnv)
		if key == "" {
			return nil, fmt.Errorf("claudecode: apiKeyEnv: %s is not set in this process's environment (set it, or remove apiKeyEnv)", c.APIKeyEnv)
		}
		api["ANTHROPIC_API_KEY"] = key
	}
	return driver.BuildEnv(c.Inherits(processDefaults), base, hermetic, api, c.Env, map[string]string{"CLAUDE_CONFIG_DIR": d.config}), nil
}

// resolvedPaths are the config's paths made absolute.
type resolvedPaths struct {
	pluginDirs []string
	addDirs    []string
	settings   string
}

// paths makes the config's paths absolute, relative paths against base,
// and checks that they exist.
func (c *Config) paths(base string) (resolvedPaths, error) {
	var r resolvedPaths
	var problems []error
	abs := func(field, p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		if _, err := os.Stat(p); err != nil {
			problems = append(problems, fmt.Errorf("claudecode: %s: %w", field, err))
		}
		return p
	}
	for i, d := range c.PluginDirs {
		r.pluginDirs = append(r.pluginDirs, abs(fmt.Sprintf("pluginDirs[%d]", i), d))
	}
	for i, d := range c.AddDirs {
		r.addDirs = append(r.addDirs, abs(fmt.Sprintf("addDirs[%d]", i), d))
	}
	switch {
	case c.Settings == "":
	case inlineSettings(c.Settings):
		r.settings = c.Settings
	default:
		r.settings = abs("settings", c.Settings)
	}
	return r, errors.Join(problems...)
}

// inlineSettings reports whether settings is JSON rather than a path.
func inlineSettings(settings string) bool {
	return strings.HasPrefix(strings.TrimSpace(settings), "{")
}
