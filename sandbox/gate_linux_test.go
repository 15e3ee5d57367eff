package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
				var at struct {
					called   bool
					value    any
					ran      bool
					state    string
					confined int
				}
				r.Gate = func(ctx context.Context) error {
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
				if err := h.StartContext(ctx, cmd); err != nil {
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
// is left to reap.
func TestGateRefusal(t *testing.T) {
	w := newWorld(t)
	errNoSlot := errors.New("no slot")
	for _, level := range []Level{LevelNone, LevelLimits} {
		t.Run(string(level), func(t *testing.T) {
			marker := filepath.Join(w.workspace, "refused-"+string(level))
			cmd := exec.Command("/bin/sh", "-c", "echo > "+marker)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			r := w.run(Config{Level: level})
			r.Gate = func(context.Context) error { return errNoSlot }
			h, err := r.Wrap(cmd, Extra{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Release()
			err = h.StartContext(context.Background(), cmd)
			if !errors.Is(err, errNoSlot) {
				t.Fatalf("StartContext = %v, want the Gate's error", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the agent ran although the Gate refused it")
			}
			if cmd.Process != nil && cmd.ProcessState == nil {
				t.Errorf("the refused agent %d was not reaped", cmd.Process.Pid)
			}
		})
	}
}
