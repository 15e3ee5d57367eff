//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
)

// Extra is what a driver adds to a run's sandbox for one process.
type Extra struct {
	Readable []string // files or directories the agent must read
	URLs     []string // endpoints the agent must reach
}

// Handle is a process started inside a sandbox.
type Handle struct {
	info Info
	gate func(context.Context) error
}

// Info is the sandbox the process runs in.
func (h *Handle) Info() Info { return h.info }

// Start starts cmd (there is no sandbox here to start it in).
func (h *Handle) Start(cmd *exec.Cmd) error { return h.StartContext(context.Background(), cmd) }

// StartContext calls the run's Gate, then starts cmd.
func (h *Handle) StartContext(ctx context.Context, cmd *exec.Cmd) error {
	return h.StartReady(ctx, cmd, nil)
}

// StartReady calls ready (when not nil), the run's Gate, then starts cmd.
func (h *Handle) StartReady(ctx context.Context, cmd *exec.Cmd, ready func() error) error {
	if ready != nil {
		if err := ready(); err != nil {
			return err
		}
	}
	if h != nil && h.gate != nil {
		if err := h.gate(ctx); err != nil {
			return fmt.Errorf("sandbox: the start was refused at its gate: %w", err)
		}
	}
	return cmd.Start()
}

// Release frees what the sandbox holds.
func (h *Handle) Release() {}

// LimitHit names the limit the agent ran into; none is known here.
func (h *Handle) LimitHit(string) string { return "" }

type plan struct {
	level   Level
	refused []string
}

const unsupported = "sandbox: only Linux is supported"

func (r *Run) plan() plan { return plan{level: LevelNone, refused: []string{unsupported}} }

// Available is the strongest level this machine offers: none.
func Available() (Level, []string, int) { return LevelNone, []string{unsupported}, 0 }

// Wrap leaves cmd as it is (no sandbox here), or refuses when the run
// requires one.
func (r *Run) Wrap(cmd *exec.Cmd, extra Extra) (*Handle, error) {
	if r.Config.Require != LevelDefault && r.Config.Require != LevelNone {
		return nil, fmt.Errorf("sandbox: level %s is required, but only none is available here: %s", r.Config.Require, unsupported)
	}
	info := Info{Level: LevelNone, Requested: r.Config.Level, Refused: []string{unsupported}}
	r.setInfo(info)
	return &Handle{info: info, gate: r.Gate}, nil
}

// SelfTest reports that no sandbox is available here.
func SelfTest(c Config) (Info, error) {
	r := &Run{Config: c}
	if _, err := r.Wrap(nil, Extra{}); err != nil {
		return Info{}, err
	}
	return Info{Level: LevelNone, Requested: c.Level, Refused: []string{unsupported}}, nil
}

// ForceLandlockABI does nothing here: there is no Landlock.
func ForceLandlockABI(int) {}

// ForceNoNamespaces does nothing here: there are no namespaces.
func ForceNoNamespaces(bool) {}
