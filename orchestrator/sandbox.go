package orchestrator

import (
	"fmt"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// sandbox is the run's sandbox: its workspace and scratch directory are
// the agent's, the files its config names and the experiment's subject
// root are readable, and no grant may expose the runs root, the harness's
// working directory, $HOME or the system's temporary directory.
func (r *runState) sandbox() *sandbox.Run {
	protect := []string{r.o.opts.RunsRoot, os.TempDir()}
	if wd, err := os.Getwd(); err == nil {
		protect = append(protect, wd)
	}
	if home, err := os.UserHomeDir(); err == nil {
		protect = append(protect, home)
	}
	c := r.o.opts.Sandbox
	// The files the driver's config names (scripts, files named with a
	// variable such as ${CASE_DIR}) are the agent's to read.
	c.ReadOnly = append(append(append([]string(nil), c.ReadOnly...), r.p.runtime.Scripts...), r.p.varFiles...)
	if r.o.opts.SubjectRoot != "" {
		// What the experiment varies is the agent's to read.
		c.ReadOnly = append(append([]string(nil), c.ReadOnly...), r.o.opts.SubjectRoot)
	}
	return &sandbox.Run{Config: c, Workspace: r.workspace, Scratch: r.scratch, Protect: protect}
}

// noProcess is the sandbox of a run whose driver started no process
// through it (a driver running in the harness's process, or one that
// starts its agent itself).
const noProcess = "the driver started no agent process through the sandbox"

// sandboxInfo is run.json's account of box.
func sandboxInfo(box *sandbox.Run) *sandbox.Info {
	in := box.Info()
	if in == nil {
		return &sandbox.Info{Level: sandbox.LevelNone, Requested: box.Config.Level, Refused: []string{noProcess}}
	}
	if in.Limits != nil {
		l := *in.Limits
		in.Limits = &l
	}
	return in
}

// requireSandbox refuses a run whose agent is below the required level
// because its driver did not start it through the sandbox (a driver that
// did was refused at its start already).
func requireSandbox(box *sandbox.Run, driver string) error {
	req := box.Config.Require
	if req == sandbox.LevelDefault || req == sandbox.LevelNone || box.Info() != nil {
		return nil
	}
	return fmt.Errorf("sandbox: level %s is required, but %s (driver %q)", req, noProcess, driver)
}

// sandboxAfter adds to meta what the sandbox saw while the agent ran,
// once it is stopped: what its proxy refused, and, for an agent that
// reported no usage, the tokens its forwarded model endpoints counted.
func sandboxAfter(meta *record.Metadata, box *sandbox.Run) {
	if box == nil {
		return
	}
	in := box.Info()
	if in == nil {
		return
	}
	if meta.Provenance.Sandbox != nil {
		meta.Provenance.Sandbox.Denied = in.Denied
	}
	if m := in.Metered; m != nil && meta.Usage.Agent == nil {
		meta.Usage.Agent = &lux.TokenUsage{Input: m.Input, Output: m.Output, CacheRead: m.CacheRead, CacheCreation: m.CacheCreation}
		meta.Usage.AgentMethod = sandbox.MeterMethod
	}
}
