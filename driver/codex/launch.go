package codex

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/luxeval/lux/driver"
)

// homeConfig is the config.toml written into each run's CODEX_HOME. It
// holds every setting the driver derives from the config, and the switches
// that keep the CLI from reaching anything but the model provider:
// analytics off and plugins (which sync from GitHub) disabled.
func (c *Config) homeConfig() string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	b.WriteString("# Written by the lux codex driver for one run.\n")
	if c.Mode == ModeAppServer {
		// The feature app-server needs for questions is flagged unstable.
		line("suppress_unstable_features_warning", "true")
	}
	line("model", tomlString(c.Model))
	line("sandbox_mode", tomlString(c.Sandbox))
	if c.Mode == ModeExec {
		// app-server takes the policy in thread/start: the CLI refuses
		// "untrusted" in config.toml, though it honours it there.
		line("approval_policy", tomlString(c.ApprovalPolicy))
	}
	if c.ReasoningEffort != "" {
		line("model_reasoning_effort", tomlString(c.ReasoningEffort))
	}
	if pr := c.Provider; pr != nil {
		line("model_provider", tomlString(pr.ID))
		fmt.Fprintf(&b, "\n[model_providers.%s]\n", pr.ID)
		line("name", tomlString(pr.ID))
		line("base_url", tomlString(pr.BaseURL))
		line("wire_api", tomlString("responses"))
		if pr.EnvKey != "" {
			line("env_key", tomlString(pr.EnvKey))
		}
		if pr.RequestMaxRetries != nil {
			line("request_max_retries", strconv.Itoa(*pr.RequestMaxRetries))
		}
		if pr.StreamMaxRetries != nil {
			line("stream_max_retries", strconv.Itoa(*pr.StreamMaxRetries))
		}
	}
	b.WriteString("\n[analytics]\n")
	line("enabled", "false")
	b.WriteString("\n[features]\n")
	line("plugins", "false")
	if c.Mode == ModeAppServer {
		// Lets the model's request_user_input tool reach the client.
		line("default_mode_request_user_input", "true")
	}
	return b.String()
}

// overrideArgs are the -c flags of the config's overrides, in key order.
func (c *Config) overrideArgs() []string {
	var args []string
	for _, k := range sortedKeys(c.Overrides) {
		v, _ := tomlValue(c.Overrides[k]) // validated by Parse
		args = append(args, "-c", k+"="+v)
	}
	return args
}

// args is the command line after the command. exec takes the prompt as
// its last argument, after "--" so that a prompt starting with "-" is not
// read as a flag; app-server gets the prompt over JSON-RPC.
func (c *Config) args(prompt string) []string {
	if c.Mode == ModeAppServer {
		args := append([]string{"app-server"}, c.overrideArgs()...)
		return append(args, c.ExtraArgs...)
	}
	args := []string{"exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral"}
	args = append(args, c.overrideArgs()...)
	args = append(args, c.ExtraArgs...)
	return append(args, "--", prompt)
}

// environ is the agent's environment: the host's (or, when not inherited,
// only PATH=driver.DefaultPath, HOME=the run's CODEX_HOME and the
// provider's key variable, taken from this process's environment so that
// no key need be written in a config), then the lux variables, then the
// config's env, then the run's CODEX_HOME.
func (c *Config) environ(runDir, workspace, codexHome string) []string {
	base := map[string]string{"NO_COLOR": "1"}
	if !c.Inherits(processDefaults) {
		base["PATH"] = driver.DefaultPath
		base["HOME"] = codexHome
		if c.Provider != nil && c.Provider.EnvKey != "" {
			if v, ok := os.LookupEnv(c.Provider.EnvKey); ok {
				base[c.Provider.EnvKey] = v
			}
		}
	}
	luxVars := map[string]string{"LUX_RUN_DIR": runDir, "LUX_WORKSPACE": workspace}
	return driver.BuildEnv(c.Inherits(processDefaults), base, luxVars, c.Env, map[string]string{"CODEX_HOME": codexHome})
}

// checkEnv reports a provider key variable missing from the agent's
// environment before the CLI fails on it.
func (c *Config) checkEnv(env []string) error {
	if c.Provider == nil || c.Provider.EnvKey == "" {
		return nil
	}
	if v, ok := driver.LookupEnv(env, c.Provider.EnvKey); !ok || v == "" {
		where := "the host environment"
		if !c.Inherits(processDefaults) {
			where = "env (the host environment is not inherited) or, to keep the key out of the config, in this process's environment"
		}
		return fmt.Errorf("codex: provider.envKey %s is not set: set it in %s", c.Provider.EnvKey, where)
	}
	return nil
}

// writeHome creates the run's CODEX_HOME with its config.toml and, when
// configured, the auth file.
func (c *Config) writeHome(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("codex: create CODEX_HOME: %w", err)
	}
	if err := os.WriteFile(dir+"/config.toml", []byte(c.homeConfig()), 0o600); err != nil {
		return fmt.Errorf("codex: write config.toml: %w", err)
	}
	if c.AuthFile != "" {
		b, err := os.ReadFile(c.AuthFile)
		if err != nil {
			return fmt.Errorf("codex: authFile: %w", err)
		}
		if err := os.WriteFile(dir+"/auth.json", b, 0o600); err != nil {
			return fmt.Errorf("codex: copy authFile: %w", err)
		}
	}
	return nil
}
