package cursor

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/orchestrator"
)

func TestParseDefaults(t *testing.T) {
	for _, raw := range []string{``, `null`, `{}`} {
		cfg, err := Parse(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("Parse(%q): %v", raw, err)
		}
		yes := true
		want := &Config{
			ProcessConfig: driver.ProcessConfig{Command: "cursor-agent", InheritEnv: &yes, IdleTimeout: lux.Duration(10 * time.Minute)},
			Model:         "auto", Approval: "force", ResultGrace: lux.Duration(3 * time.Second),
			KillGrace: lux.Duration(5 * time.Second), MaxArtifactFiles: 500, MaxLineBytes: 32 << 20,
		}
		if diff := cmp.Diff(want, cfg); diff != "" {
			t.Errorf("Parse(%q) defaults (-want +got):\n%s", raw, diff)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // every problem, as "path: problem (fix)"
	}{
		{
			name: "unknown field, with a suggestion",
			raw:  `{"Model":"auto","idleTimeoutMs":1000}`,
			want: []string{
				`Model: unknown field (did you mean "model"?)`,
				`idleTimeoutMs: unknown field (did you mean "idleTimeout"?)`,
			},
		},
		{
			name: "wrong types",
			raw:  `{"model":3,"extraArgs":"--foo","idleTimeout":"soon"}`,
			want: []string{
				`extraArgs: must be a list, got string`,
				`idleTimeout: must be a duration such as "90s" or a number of milliseconds, got "soon"`,
				`model: must be a string, got number`,
			},
		},
		{
			name: "bad values, all reported",
			raw: `{"approval":"ask","mode":"edit","sandbox":"on","idleTimeout":-1,"resultGrace":"-2s","maxLineBytes":-5,
				"env":{"1BAD":"x","OK":"y"},"apiKeyEnv":"MY-KEY","command":" cursor-agent"}`,
			want: []string{
				`command: has leading or trailing white space (write the executable alone; arguments have a field of their own)`,
				`env.1BAD: not a valid variable name (use letters, digits and '_', not starting with a digit)`,
				`idleTimeout: must not be negative, got -1ms (leave it out for 10m, or give a duration such as "90s")`,
				`approval: unknown approval "ask" (use "force" or "reject")`,
				`mode: unknown mode "edit" (use "plan", "ask", or leave it out for the default agent mode)`,
				`sandbox: unknown sandbox setting "on" (use "enabled" or "disabled", or leave it out)`,
				`apiKeyEnv: "MY-KEY" is not an environment variable name (name the variable that holds the key, e.g. "CURSOR_API_KEY")`,
				`resultGrace: must not be negative (use a duration such as "3s")`,
				`maxLineBytes: must not be negative (leave it out for 32 MiB)`,
			},
		},
		{
			name: "flags the driver owns are refused in extraArgs",
			raw:  `{"extraArgs":["--add-dir","/x","--model=gpt-5","--yolo","--resume","abc","--output-format","json","--api-key","k","--"]}`,
			want: []string{
				`extraArgs[2]: --model is set by the driver (use "model")`,
				`extraArgs[3]: --yolo is set by the driver (use "approval": "force")`,
				`extraArgs[4]: --resume is set by the driver (each run starts a new chat; resuming is not supported)`,
				`extraArgs[6]: --output-format is set by the driver (the driver always reads stream-json)`,
				`extraArgs[8]: --api-key is set by the driver (a secret does not belong in a config: use "apiKeyEnv")`,
				`extraArgs[10]: -- is set by the driver (the driver puts the prompt after its own --)`,
			},
		},
		{
			name: "an API key in env and apiKeyEnv conflict",
			raw:  `{"env":{"CURSOR_API_KEY":"k"},"apiKeyEnv":"MY_KEY"}`,
			want: []string{`env.CURSOR_API_KEY: conflicts with apiKeyEnv (set one of them)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tt.raw))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !errors.Is(err, lux.ErrInvalidConfig) {
				t.Errorf("error %v does not wrap lux.ErrInvalidConfig", err)
			}
			if !strings.HasPrefix(err.Error(), "cursor: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			var got []string
			for _, e := range lux.ProblemsOf(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{
			name: "defaults",
			raw:  `{}`,
			want: []string{"-p", "--output-format", "stream-json", "--model", "auto", "--trust", "--force", "--workspace", "/ws", "--", "-do it"},
		},
		{
			name: "every option",
			raw: `{"model":"claude-opus-4-8[effort=high]","approval":"reject","skipTrust":true,"mode":"plan","sandbox":"enabled",
				"streamPartialOutput":true,"approveMcps":true,"extraArgs":["--add-dir","/extra"]}`,
			want: []string{
				"-p", "--output-format", "stream-json", "--model", "claude-opus-4-8[effort=high]", "--mode", "plan",
				"--sandbox", "enabled", "--stream-partial-output", "--approve-mcps", "--workspace", "/ws",
				"--add-dir", "/extra", "--", "-do it",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.args("/ws", "-do it")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuntime(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want lux.Runtime
	}{
		{
			name: "defaults: tool events only",
			raw:  `{}`,
			want: lux.Runtime{Commands: []string{"cursor-agent"}, Versioned: []string{"cursor-agent"}, Capabilities: []lux.Capability{lux.ReportsTools}, Model: "auto", InstallHint: InstallHint},
		},
		{
			name: "usage declared on request",
			raw:  `{"command":"/opt/cursor/agent","model":"gpt-5.5-medium","reportsUsage":true}`,
			want: lux.Runtime{
				Commands: []string{"/opt/cursor/agent"}, Versioned: []string{"/opt/cursor/agent"}, Capabilities: []lux.Capability{lux.ReportsTools, lux.ReportsUsage},
				Model: "gpt-5.5-medium", InstallHint: InstallHint,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.Runtime()); diff != "" {
				t.Errorf("runtime (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapabilitiesRefuseInteractiveCases(t *testing.T) {
	cfg, err := Parse(json.RawMessage(`{"reportsUsage":true}`))
	if err != nil {
		t.Fatal(err)
	}
	rt := cfg.Runtime()
	tests := []struct {
		name     string
		requires []lux.Capability
		missing  string // "" when allowed
	}{
		{"ask is refused", []lux.Capability{lux.CanAsk}, "ask"},
		{"approve is refused", []lux.Capability{lux.CanApprove, lux.ReportsTools}, "approve"},
		{"custom interrupts and cost are refused", []lux.Capability{lux.CanCustom, lux.ReportsCost}, "custom, cost"},
		{"tool events and declared usage are allowed", []lux.Capability{lux.ReportsTools, lux.ReportsUsage}, ""},
		{"nothing required", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := orchestrator.CheckCapabilities("cursor", rt, tt.requires)
			if tt.missing == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, orchestrator.ErrMissingCapability) {
				t.Fatalf("got %v, want orchestrator.ErrMissingCapability", err)
			}
			want := `driver "cursor" does not declare ` + tt.missing + ` (it declares: tool-events, usage)`
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		})
	}
}

func TestConfigMarshalsWithDefaults(t *testing.T) {
	cfg, err := Parse(json.RawMessage(`{"model":"auto","env":{"A":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"command":"cursor-agent","env":{"A":"1"},"inheritEnv":true,"idleTimeout":"10m0s","model":"auto","approval":"force","resultGrace":"3s","killGrace":"5s","maxArtifactFiles":500,"maxLineBytes":33554432}`
	if string(b) != want {
		t.Errorf("marshalled config\n got %s\nwant %s", b, want)
	}
	// The marshalled form parses back to the same config.
	again, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, again); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
