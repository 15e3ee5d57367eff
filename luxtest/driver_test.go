package luxtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/luxtest"
)

// echoConfig is a subprocess config running echoagent.
func echoConfig(extra string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"command": %q, "idleTimeout": "30s"%s}`, echoagent, extra))
}

func TestDriverSubprocess(t *testing.T) {
	luxtest.TestDriver(t, subprocess.Plugin(),
		luxtest.DriverScenario{
			Name:          "done",
			Config:        echoConfig(""),
			Prompt:        `write hello.txt containing "hi". say "finished"`,
			WantExit:      lux.ExitDone,
			WantArtifacts: []string{"hello.txt"},
		},
		luxtest.DriverScenario{
			Name:           "ask",
			Config:         echoConfig(""),
			Prompt:         `ask "Which name?" and write the answer to name.txt`,
			Answer:         func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: in.Kind, ID: in.ID, Text: "Ada"} },
			WantExit:       lux.ExitDone,
			WantInterrupts: []lux.InterruptKind{lux.Ask},
			Check: func(o luxtest.Outcome) error {
				b, err := os.ReadFile(filepath.Join(o.Workspace, "name.txt"))
				if err != nil || strings.TrimSpace(string(b)) != "Ada" {
					return fmt.Errorf("name.txt = %q, %v; want the answer Ada", b, err)
				}
				return nil
			},
		},
		luxtest.DriverScenario{
			Name:     "fail",
			Config:   echoConfig(""),
			Prompt:   `fail "cannot do it"`,
			WantExit: lux.ExitError,
		},
	)
}

// TestDriverCatchesBrokenDrivers runs the suite against drivers that each
// break one rule, and checks that it reports exactly what they break.
func TestDriverCatchesBrokenDrivers(t *testing.T) {
	tests := []struct {
		breaks  string
		timeout time.Duration
		manual  bool     // the timeout runs on a manual clock (advanceWhenBlocked)
		want    []string // the checks that report a problem
	}{
		{breaks: "", want: nil},
		{breaks: "lax-parse", want: []string{"parse-unknown-field", "parse-invalid"}},
		{breaks: "unencodable", want: []string{"experiment", "config-json"}},
		{breaks: "unstable-runtime", want: []string{"runtime"}},
		// An in-process driver launches no command: that is no problem.
		{breaks: "no-commands", want: nil},
		{breaks: "prepare-mutates", want: []string{"experiment"}},
		{breaks: "unstable-identity", want: []string{"experiment"}},
		{breaks: "start-fails", want: []string{"start"}},
		{breaks: "ignore-cancel", want: []string{"next-cancelled"}},
		{breaks: "panic-next", want: []string{"next-cancelled"}},
		{breaks: "done-before-ready", want: []string{"order"}},
		{breaks: "two-terminal", want: []string{"terminal"}},
		{breaks: "no-terminal", want: []string{"terminal"}},
		// A Next that blocks after the terminal event shows only once the
		// timeout has passed; one that ignores its deadline is abandoned by
		// the guard a margin after it. Both run on a manual clock, advanced
		// past the deadline and then the margin once the Next blocks.
		{breaks: "no-eof", timeout: time.Minute, manual: true, want: []string{"eof"}},
		{breaks: "hang-next", timeout: time.Minute, manual: true, want: []string{"eof"}},
		{breaks: "undeclared-ask", want: []string{"capability"}},
		{breaks: "malformed", want: []string{"event"}},
		{breaks: "lifecycle", want: []string{"event"}},
		{breaks: "respond-fails", want: []string{"respond"}},
		{breaks: "lose-answer", want: []string{"continue"}},
		{breaks: "quiesce-once", want: []string{"quiesce"}},
		{breaks: "escape", want: []string{"collect"}},
		{breaks: "follow-symlinks", want: []string{"collect"}},
		{breaks: "skip-fixture", want: []string{"collect"}},
		{breaks: "close-fails", want: []string{"close"}},
	}
	for _, tt := range tests {
		name := tt.breaks
		if name == "" {
			name = "conforming"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			breaks := []string{}
			if tt.breaks != "" {
				breaks = append(breaks, tt.breaks)
			}
			cfg, err := json.Marshal(map[string]any{"breaks": breaks, "ask": true})
			require.NoError(t, err)
			ctx := t.Context()
			if tt.manual {
				ctx = advanceWhenBlocked(ctx, tt.timeout)
			}
			err = luxtest.CheckDriver(ctx, fakeDriver(breaks...), luxtest.DriverScenario{Name: "ask", Config: cfg, Prompt: "go", Timeout: tt.timeout})
			if err != nil {
				t.Log(err)
			}
			if diff := cmp.Diff(tt.want, checks(err)); diff != "" {
				t.Errorf("checks reporting problems (-want +got):\n%s\nerror: %v", diff, err)
			}
			if tt.want != nil {
				var ce *luxtest.ConformanceError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, `driver "fake"`, ce.Plugin)
			}
		})
	}
}

// checks lists the distinct checks that reported the problems of err, in
// the order of their first problem.
func checks(err error) []string {
	var out []string
	for _, p := range luxtest.ProblemsOf(err) {
		if !slices.Contains(out, p.Check) {
			out = append(out, p.Check)
		}
	}
	return out
}

// A cancelled context is reported as such, not blamed on the driver.
func TestDriverCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := luxtest.CheckDriver(ctx, fakeDriver(), luxtest.DriverScenario{Config: json.RawMessage(`{}`), Prompt: "go"})
	assert.Equal(t, []string{"cancelled"}, checks(err))
}

// The scenario's own expectations are checked on top of the contract.
func TestDriverScenarioExpectations(t *testing.T) {
	err := luxtest.CheckDriver(t.Context(), subprocess.Plugin(), luxtest.DriverScenario{
		Name:           "wants",
		Config:         echoConfig(""),
		Prompt:         `fail "no"`,
		WantExit:       lux.ExitDone,
		WantInterrupts: []lux.InterruptKind{lux.Ask},
		WantArtifacts:  []string{"hello.txt"},
		Check:          func(o luxtest.Outcome) error { return fmt.Errorf("%d events", len(o.Events)) },
	})
	var msgs []string
	for _, p := range luxtest.ProblemsOf(err) {
		msgs = append(msgs, p.String())
	}
	assert.Equal(t, []string{
		`[wants] expect: the run ended error; want done (the error event says: no)`,
		`[wants] expect: the agent raised interrupts []; want [ask]`,
		`[wants] expect: Collect did not return "hello.txt"`,
		`[wants] expect: 2 events`,
	}, msgs)
}

// Setup stages the workspace before the agent starts.
func TestDriverScenarioSetup(t *testing.T) {
	luxtest.TestDriver(t, subprocess.Plugin(), luxtest.DriverScenario{
		Config:        echoConfig(""),
		Prompt:        `say "hello"`,
		Setup:         func(ws string) error { return os.WriteFile(filepath.Join(ws, "staged.txt"), []byte("x"), 0o644) },
		WantArtifacts: []string{"staged.txt"},
	})
}

// advanceWhenBlocked returns ctx with a manual clock that, once the fake's
// Next blocks, is advanced past timeout (Next's deadline), then, once the
// guard has armed its margin, past that margin (at most timeout).
func advanceWhenBlocked(ctx context.Context, timeout time.Duration) context.Context {
	m := &clock.Manual{}
	blocked := make(chan struct{}, 1)
	ctx = context.WithValue(clock.With(ctx, m), blockedKey{}, blocked)
	go func() {
		select {
		case <-blocked:
		case <-ctx.Done():
			return
		}
		armed := m.Scheduled()
		m.Advance(timeout)
		if m.WaitScheduled(ctx, armed+1) == nil {
			m.Advance(timeout)
		}
	}()
	return ctx
}
