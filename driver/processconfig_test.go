package driver_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func TestProcessConfigWithDefaults(t *testing.T) {
	cli := driver.CLIDefaults("claude", nil)
	got := driver.ProcessConfig{}.WithDefaults(cli)
	yes, no := true, false
	assert.Equal(t, driver.ProcessConfig{Command: "claude", InheritEnv: &yes, IdleTimeout: lux.Duration(10 * time.Minute)}, got)

	program := driver.LuxJSONLDefaults(nil)
	got = driver.ProcessConfig{Command: "./agent"}.WithDefaults(program)
	assert.Equal(t, driver.ProcessConfig{Command: "./agent", InheritEnv: &no, IdleTimeout: lux.Duration(2 * time.Minute)}, got)

	// What the config says is kept.
	set := driver.ProcessConfig{Command: "/bin/claude", InheritEnv: &no, IdleTimeout: lux.Duration(time.Second)}
	assert.Equal(t, set, set.WithDefaults(cli))
	assert.False(t, set.Inherits(cli))
	assert.True(t, driver.ProcessConfig{}.Inherits(cli), "an unset inheritEnv is the driver's default")
	assert.False(t, driver.ProcessConfig{}.Inherits(program))
}

func TestProcessConfigControlledSharesNothing(t *testing.T) {
	yes := true
	p := driver.ProcessConfig{Command: "x", Env: map[string]string{"A": "1"}, InheritEnv: &yes}
	c := p.Controlled()
	require.NotNil(t, c.InheritEnv)
	assert.False(t, *c.InheritEnv)
	assert.True(t, *p.InheritEnv, "the original changed")
	c.Env["A"] = "2"
	assert.Equal(t, "1", p.Env["A"], "the copy shares the original's env")
}

func TestProcessConfigValidate(t *testing.T) {
	reserved := map[string]string{"OWN_VAR": "the driver sets it"}
	tests := []struct {
		name     string
		defaults driver.ProcessDefaults
		cfg      driver.ProcessConfig
		want     []string
	}{
		{name: "defaults are valid", defaults: driver.CLIDefaults("claude", reserved)},
		{name: "required command", defaults: driver.LuxJSONLDefaults(reserved), cfg: driver.ProcessConfig{Command: "  "},
			want: []string{`command: required (set it to the agent's executable, e.g. "./agent" or "python3")`}},
		{name: "blank command", defaults: driver.CLIDefaults("claude", reserved), cfg: driver.ProcessConfig{Command: " "},
			want: []string{`command: is blank (leave it out for "claude", or give the executable's name or path)`}},
		{name: "command with spaces", defaults: driver.CLIDefaults("claude", reserved), cfg: driver.ProcessConfig{Command: "claude -p"},
			want: nil},
		{name: "command with a NUL", defaults: driver.CLIDefaults("claude", reserved), cfg: driver.ProcessConfig{Command: "a\x00b"},
			want: []string{"command: contains a NUL byte (remove it)"}},
		{name: "padded command", defaults: driver.CLIDefaults("claude", reserved), cfg: driver.ProcessConfig{Command: " claude"},
			want: []string{"command: has leading or trailing white space (write the executable alone; arguments have a field of their own)"}},
		{name: "env", defaults: driver.CLIDefaults("claude", reserved),
			cfg: driver.ProcessConfig{Env: map[string]string{"OWN_VAR": "x", "1BAD": "x", "my-var": "x", "OK": "a\x00"}},
			want: []string{
				"env.1BAD: not a valid variable name (use letters, digits and '_', not starting with a digit)",
				"env.OK: value contains a NUL byte (remove it)",
				"env.OWN_VAR: set by the driver (the driver sets it)",
				"env.my-var: not a valid variable name (use letters, digits and '_', not starting with a digit)",
			}},
		{name: "negative idle timeout", defaults: driver.LuxJSONLDefaults(nil), cfg: driver.ProcessConfig{Command: "a", IdleTimeout: lux.Duration(-time.Second)},
			want: []string{`idleTimeout: must not be negative, got -1s (leave it out for 2m, or give a duration such as "90s")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p lux.Problems
			tt.cfg.Validate(&p, tt.defaults)
			var got []string
			for _, e := range lux.ProblemsOf(p.Err(lux.ErrInvalidConfig)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// A failed parse gives a nil lux.DriverConfig, not a nil pointer in a
// non-nil interface.
func TestParserFailureIsNil(t *testing.T) {
	type cfg struct{ lux.DriverConfig }
	parse := driver.Parser(func(json.RawMessage) (*cfg, error) { return nil, errors.New("bad") })
	dc, err := parse(nil)
	require.Error(t, err)
	assert.True(t, dc == nil, "got a non-nil interface holding %T", dc)
}
