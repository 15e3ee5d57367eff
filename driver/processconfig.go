package driver

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/naming"
)

// DefaultCLIIdleTimeout is the idle timeout of the drivers of agent CLIs
// (claude-code, codex, cursor): longer than DefaultIdleTimeout, because a
// CLI prints nothing while a shell command or a tool call runs.
const DefaultCLIIdleTimeout = 10 * time.Minute

// ProcessConfig is the part of a driver's config that says which program
// runs and in what environment. The built-in drivers that run a process
// (claude-code, codex, cursor, subprocess) embed it in their Config, so
// these fields read and behave the same in each, at the top level of the
// config's JSON:
//
//	{"command": "claude", "env": {"LANG": "C.UTF-8"}, "inheritEnv": false, "idleTimeout": "15m"}
//
// A field left out (or zero) takes the driver's default, its
// [ProcessDefaults]; the driver's Parse fills the defaults in, so that the
// config a run records, and hashes into its provenance, shows the values
// used.
type ProcessConfig struct {
	// Command is the executable: a name looked up on PATH, or a path. A
	// relative path is relative to the directory of the case file that
	// names the driver, as the case's fixtures are (see CommandPath), else
	// to the harness's working directory. Default: the driver's CLI
	// ("claude", "codex", "cursor-agent"); a driver with no default
	// (subprocess) requires it.
	Command string `json:"command,omitempty"`
	// Env sets variables of the agent's environment, over the inherited
	// ones. A driver refuses the names it sets itself for each run.
	Env map[string]string `json:"env,omitempty"`
	// InheritEnv passes the harness's environment on to the agent. When
	// false the agent gets only PATH=DefaultPath (unless Env sets PATH),
	// the driver's own per-run variables (each driver's documentation
	// names them) and Env: no HOME unless the driver gives one, no
	// locale, no API keys. Default: true for the agent CLIs, which need
	// their login and settings (see CLIDefaults); false for a lux-jsonl
	// program, so that a run depends on nothing it was not given (see
	// LuxJSONLDefaults).
	InheritEnv *bool `json:"inheritEnv,omitempty"`
	// IdleTimeout ends the run with exit reason idle-timeout when the
	// agent prints nothing for this long while no answer is outstanding
	// ("90s", or a number of milliseconds). Default: DefaultCLIIdleTimeout
	// (10m) for the agent CLIs, DefaultIdleTimeout (2m) for a lux-jsonl
	// program.
	IdleTimeout lux.Duration `json:"idleTimeout,omitempty"`
}

// ProcessDefaults are one driver's defaults for its ProcessConfig, and
// the environment variables it sets itself.
type ProcessDefaults struct {
	// Command is the default executable; empty when the config must name
	// one.
	Command string
	// InheritEnv is whether the agent gets the harness's environment when
	// the config does not say.
	InheritEnv bool
	// IdleTimeout is the idle timeout when the config gives none.
	IdleTimeout time.Duration
	// Reserved are the variables the driver sets for each run, each with
	// what to do instead of setting it in Env.
	Reserved map[string]string
}

// CLIDefaults are the defaults of a driver of an agent CLI whose
// executable is command: the harness's environment inherited and an idle
// timeout of DefaultCLIIdleTimeout. reserved are the variables the driver
// sets itself (see ProcessDefaults.Reserved).
func CLIDefaults(command string, reserved map[string]string) ProcessDefaults {
	return ProcessDefaults{Command: command, InheritEnv: true, IdleTimeout: DefaultCLIIdleTimeout, Reserved: reserved}
}

// LuxJSONLDefaults are the defaults of a driver of a program speaking
// lux-jsonl: the command is required, the harness's environment is not
// inherited, and the idle timeout is DefaultIdleTimeout. reserved are the
// variables the driver sets itself.
func LuxJSONLDefaults(reserved map[string]string) ProcessDefaults {
	return ProcessDefaults{IdleTimeout: DefaultIdleTimeout, Reserved: reserved}
}

// WithDefaults returns p with every field left out set to d's default.
// InheritEnv is always set afterwards. Env is shared with p.
func (p ProcessConfig) WithDefaults(d ProcessDefaults) ProcessConfig {
	if p.Command == "" {
		p.Command = d.Command
	}
	if p.InheritEnv == nil {
		p.InheritEnv = boolPtr(d.InheritEnv)
	}
	if p.IdleTimeout == 0 {
		p.IdleTimeout = lux.Duration(d.IdleTimeout)
	}
	return p
}

// Inherits reports whether the agent gets the harness's environment: the
// value of InheritEnv, or d's default when it is not set.
func (p ProcessConfig) Inherits(d ProcessDefaults) bool {
	if p.InheritEnv == nil {
		return d.InheritEnv
	}
	return *p.InheritEnv
}

// Controlled returns a copy of p for a controlled experiment: the
// harness's environment is not inherited. The copy shares nothing with p.
func (p ProcessConfig) Controlled() ProcessConfig {
	out := p.Clone()
	out.InheritEnv = boolPtr(false)
	return out
}

// Clone returns a copy of p that shares nothing with it.
func (p ProcessConfig) Clone() ProcessConfig {
	p.Env = maps.Clone(p.Env)
	if p.InheritEnv != nil {
		p.InheritEnv = boolPtr(*p.InheritEnv)
	}
	return p
}

// Validate records every problem of p's fields in probs, each at its path
// (command, env.NAME, idleTimeout) with how to fix it, as d's driver
// reads them.
func (p *ProcessConfig) Validate(probs *lux.Problems, d ProcessDefaults) {
	switch {
	case strings.TrimSpace(p.Command) == "" && d.Command == "":
		probs.AddFix("command", "required", `set it to the agent's executable, e.g. "./agent" or "python3"`)
	case p.Command != "" && strings.TrimSpace(p.Command) == "":
		probs.AddFix("command", "is blank", fmt.Sprintf("leave it out for %q, or give the executable's name or path", d.Command))
	case strings.TrimSpace(p.Command) != p.Command:
		probs.AddFix("command", "has leading or trailing white space", "write the executable alone; arguments have a field of their own")
	case strings.ContainsRune(p.Command, 0):
		probs.AddFix("command", "contains a NUL byte", "remove it")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		at := naming.Join("env", k)
		if fix, ok := d.Reserved[k]; ok {
			probs.AddFix(at, "set by the driver", fix)
			continue
		}
		switch {
		case !ValidEnvName(k):
			probs.AddFix(at, "not a valid variable name", "use letters, digits and '_', not starting with a digit")
		case strings.ContainsRune(p.Env[k], 0):
			probs.AddFix(at, "value contains a NUL byte", "remove it")
		}
	}
	if p.IdleTimeout < 0 {
		probs.AddFix("idleTimeout", fmt.Sprintf("must not be negative, got %s", p.IdleTimeout),
			fmt.Sprintf(`leave it out for %s, or give a duration such as "90s"`, shortDuration(d.IdleTimeout)))
	}
}

// ValidEnvName reports whether name is a portable environment variable
// name: letters, digits and '_', not starting with a digit.
func ValidEnvName(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// shortDuration writes d as a config would: "10m", "2m", "1h", "90s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func boolPtr(b bool) *bool { return &b }
