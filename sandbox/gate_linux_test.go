package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type gateKey struct{}

// TestGateHoldsTheAgent: at every level and by either start, the Gate is
// called with the start's context once everything is ready and before
// the agent runs its first instruction (it has written nothing yet); at
// the levels started from a confined thread the process already exists
// there, stopped (or taking its stop), with no thread of the harness confined. Once the Gate
// returns, the agent runs.
func TestGateHoldsTheAgent(t *testing.T) {
	w := newWorld(t)
	levels := []Level{LevelNone, LevelLimits}
	if _, err := landlockProbe(); err == nil {
		levels = append(levels, LevelLandlock)
	}
	for _, helper := range []bool{false, true} {
		for _, level := range levels {
			name := string(level)
			if helper {
				name += "/helper"
			}
			t.Run(name, func(t *testing.T) {
				forceHelper.Store(helper)
				defer forceHelper.Store(false)
				marker := filepath.Join(w.workspace, "ran-"+strings.ReplaceAll(name, "/", "-"))
				cmd := exec.Command("/bin/sh", "-c", "echo > "+marker)
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				r := w.run(Config{Level: level})
				var order []string
				var at struct {
					called   bool
					value    any
					ran      bool
					state    string
					confined int
				}
				r.Gate = func(ctx context.Context) error {
					order = append(order, "gate")
					at.called, at.value = true, ctx.Value(gateKey{})
					_, err := os.Stat(marker)
					at.ran = err == nil
					if cmd.Process != nil {
						at.state, _ = procState(cmd.Process.Pid)
					}
					at.confined = threadsWithNoNewPrivs(t)
					return nil
				}
				h, err := r.Wrap(cmd, Extra{})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Release()
				ctx := context.WithValue(context.Background(), gateKey{}, "start's")
				ready := func() error { order = append(order, "ready"); return nil }
				if err := h.StartReady(ctx, cmd, ready); err != nil {
					t.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					t.Fatal(err)
				}
				if !at.called || at.value != "start's" {
					t.Fatalf("Gate called %v with context value %v, want once with the start's context", at.called, at.value)
				}
				if at.ran {
					t.Errorf("the agent ran before the Gate returned")
				}
				if want := []string{"ready", "gate"}; !slices.Equal(order, want) {
					t.Errorf("called %v, want %v", order, want)
				}
				if at.confined != 0 {
					t.Errorf("%d threads of the harness were confined during the Gate, want 0", at.confined)
				}
				// The process exists, stopped or on its way to the stop
				// (R: taking the SIGSTOP before its first instruction).
				if level != LevelNone && !helper && at.state != "T" && at.state != "R" {
					t.Errorf("the agent's state during the Gate = %q, want T (stopped) or R (stopping)", at.state)
				}
				if _, err := os.Stat(marker); err != nil {
					t.Errorf("the agent did not run after the Gate: %v", err)
				}
			})
		}
	}
}

// TestGateRefusal: a Gate that returns an error refuses the start: the
// error says so and wraps the Gate's, the agent never ran, and nothing
// is left to reap; so does a StartReady whose ready fails (the Gate is
// then not called).
func TestGateRefusal(t *testing.T) {
	w := newWorld(t)
	errNoSlot := errors.New("no slot")
	for _, viaReady := range []bool{false, true} {
		for _, level := range []Level{LevelNone, LevelLimits} {
			name := string(level)
			if viaReady {
				name += "/ready"
			}
			t.Run(name, func(t *testing.T) {
				marker := filepath.Join(w.workspace, "refused-"+strings.ReplaceAll(name, "/", "-"))
				cmd := exec.Command("/bin/sh", "-c", "echo > "+marker)
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				r := w.run(Config{Level: level})
				var ready func() error
				if viaReady {
					ready = func() error { return errNoSlot }
					r.Gate = func(context.Context) error { t.Error("the Gate was called after ready failed"); return nil }
				} else {
					r.Gate = func(context.Context) error { return errNoSlot }
				}
				h, err := r.Wrap(cmd, Extra{})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Release()
				if err := h.StartReady(context.Background(), cmd, ready); !errors.Is(err, errNoSlot) {
					t.Fatalf("StartReady = %v, want the refusal's error", err)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("the agent ran although its start was refused")
				}
				if cmd.Process != nil && cmd.ProcessState == nil {
					t.Errorf("the refused agent %d was not reaped", cmd.Process.Pid)
				}
			})
		}
	}
}
