// Package subprocess is the driver for any program that speaks lux-jsonl,
// the lux line protocol: the agent writes one JSON event per line on
// stdout (ready, progress, interrupt, done, error) and reads the answers to
// its interrupts as JSON lines on stdin. See [driver.LuxJSONL] for the
// wire format.
//
// The agent gets the run through its environment:
//
//   - LUX_PROMPT_FILE: a file holding the prompt, in StartInfo.TempDir
//     (under the runs root's live area when the orchestrator runs it),
//     removed after the run; written while the agent's process is set
//     up, complete before the agent's first instruction;
//   - LUX_PROMPT: the prompt itself, when it fits in an environment
//     variable (at most MaxEnvPrompt bytes, about 128 KiB; a longer
//     prompt is only in the file);
//   - LUX_ARTIFACTS_DIR: the workspace, also its default working
//     directory; what it holds when the agent is stopped is the run's
//     artifacts;
//   - LUX_RUN_DIR: a scratch directory of the run's own, empty at the
//     start and removed after the run. It is not the run's record: the
//     agent is never told where the record is, and one that finds it and
//     writes to it is caught, since the record's evidence is fingerprinted
//     as the harness wrote it (see orchestrator.Regrade);
//   - LUX_CASE_ID: the case id.
//
// Unless the config sets inheritEnv (see Config), the agent gets only
// the config's env, the LUX_* variables and a fixed PATH (driver.DefaultPath,
// unless env sets PATH) — no HOME and no API keys — so a run depends on
// nothing it was not given. The fixed PATH lets ordinary scripts
// ("#!/usr/bin/env python3") start while staying the same on every
// machine.
//
// The agent runs in its own process group: when the run ends, or the
// harness quiesces it, everything it started is stopped (SIGTERM, then
// SIGKILL after 5 s). On Linux with a cgroup v2 the harness may create,
// that includes processes that left the group (setsid, daemons), and a
// killed harness takes them with it; see "Containment" in package driver
// for exactly what is guaranteed with only the subreaper and elsewhere.
package subprocess

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// Name is the driver's registered name.
const Name = "subprocess"

// Plugin returns the subprocess driver, ready to register.
func Plugin() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name:       Name,
		Doc:        "runs any program that speaks lux-jsonl (JSON events on stdout, answers on stdin)",
		Parse:      driver.Parser(Parse),
		Experiment: driver.Experiment("subprocess", "1", prepare, identity),
	}
}

// prepare makes the controlled-experiment config: the host environment is
// never inherited.
func prepare(c *Config) (*Config, error) {
	out := *c
	out.ProcessConfig = out.Controlled()
	out.Args = slices.Clone(out.Args)
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("subprocess: prepare: %w", err)
	}
	return &out, nil
}

// Identity is what shapes a subprocess agent's behaviour beyond its
// config: the executable itself, by the hash of its content. The agent is
// never run to learn a version: a lux-jsonl agent reports its version in
// its ready event.
type Identity struct {
	Command string `json:"command"`
	Path    string `json:"path"`
	SHA256  string `json:"sha256"` // of the executable file
}

func identity(ctx context.Context, c *Config, _ string) (any, error) {
	path, err := c.resolve("")
	if err != nil {
		return nil, fmt.Errorf("subprocess: identity: %w", err)
	}
	sum, err := driver.HashFile(path)
	if err != nil {
		return nil, fmt.Errorf("subprocess: identity: %w", err)
	}
	return Identity{Command: c.Command, Path: path, SHA256: sum}, nil
}

// resolve finds the executable the agent runs: a path relative to caseDir
// (see driver.CommandPath), or a name on Env's PATH, then the harness's
// PATH — by driver.FindCommand with the search path Runtime declares, as
// the orchestrator finds it to record it.
func (c *Config) resolve(caseDir string) (string, error) {
	return driver.FindCommand(caseDir, c.Command, c.searchPath())
}

// searchPath is the PATH a bare command name is looked up on before the
// harness's: the agent's own, when Env sets one.
func (c *Config) searchPath() string { return c.Env["PATH"] }

// Start launches the agent for one run.
func (c *Config) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	path, err := c.resolve(info.CaseDir)
	if err != nil {
		return nil, fmt.Errorf("subprocess: failed to start %s: %w", c.Command, err)
	}
	dir := info.Workspace
	switch {
	case c.Cwd == "":
	case filepath.IsAbs(c.Cwd):
		dir = c.Cwd
	default:
		dir = filepath.Join(info.Workspace, c.Cwd)
	}
	prompt, err := writePrompt(info)
	if err != nil {
		return nil, fmt.Errorf("subprocess: failed to start %s: write the prompt file: %w", c.Command, err)
	}
	proto := &driver.LuxJSONL{}
	opts := driver.SessionOptions{
		Process: driver.ProcessSpec{
			Path:   path,
			Args:   c.Args,
			Dir:    dir,
			Env:    c.environ(info, prompt.path),
			Stderr: info.Stderr,
			// The prompt file is outside the workspace, in a directory
			// that holds nothing else: the directory is granted, as the
			// file may not exist yet when the sandbox is set up.
			Readable: []string{filepath.Dir(prompt.path)},
			Ready:    prompt.written,
		},
		Protocol:         proto,
		Workspace:        info.Workspace,
		IdleTimeout:      c.IdleTimeout.D(),
		Timeout:          c.Timeout.D(),
		MaxInterrupts:    c.MaxInterrupts,
		MaxLineBytes:     c.MaxLineBytes,
		MaxArtifactFiles: c.MaxArtifactFiles,
	}
	opts.OnClose = prompt.remove
	// An agent that exits without done or error: its ignored lines are
	// recorded before the session's error says so.
	opts.OnExit = func(driver.ExitStatus, string) *lux.Event { return proto.Diagnostic() }
	if c.PromptOnStdin {
		opts.Input, opts.CloseStdin = []byte(info.Prompt+"\n"), true
	}
	s, err := driver.StartSession(ctx, opts)
	if err != nil {
		prompt.remove()
		return nil, fmt.Errorf("subprocess: %w", err)
	}
	return s, nil
}

// PromptFileName is the name of the prompt file (LUX_PROMPT_FILE) in the
// driver's directory (StartInfo.TempDir).
const PromptFileName = "prompt.txt"

// promptFile is a run's prompt file, written in the background while the
// agent's process is set up (creating a file costs a journaling file
// system a good part of a millisecond); the agent runs once it is written.
type promptFile struct {
	path    string
	dir     string // a directory made for it, removed with it; "" for none
	written func() error
}

// remove waits for the write, then removes the directory made for the
// file, if any.
func (p *promptFile) remove() {
	_ = p.written()
	if p.dir != "" {
		_ = os.RemoveAll(p.dir)
	}
}

// writePrompt starts writing the prompt file of a run. It is written in
// the driver's directory, which is empty at the start and which the
// harness empties or removes after the run; without one, in a directory
// of its own made for it under the system's temporary directory.
func writePrompt(info lux.StartInfo) (*promptFile, error) {
	p := &promptFile{}
	if info.TempDir != "" {
		p.path = filepath.Join(info.TempDir, PromptFileName)
	} else {
		dir, err := os.MkdirTemp("", "lux-prompt-")
		if err != nil {
			return nil, err
		}
		p.dir, p.path = dir, filepath.Join(dir, PromptFileName)
	}
	done := make(chan error, 1)
	go func() { done <- os.WriteFile(p.path, []byte(info.Prompt), 0o600) }()
	p.written = sync.OnceValue(func() error {
		if err := <-done; err != nil {
			return fmt.Errorf("write the prompt file: %w", err)
		}
		return nil
	})
	return p, nil
}

// environ is the agent's environment for one run.
func (c *Config) environ(info lux.StartInfo, promptFile string) []string {
	var base map[string]string
	inherit := c.Inherits(processDefaults)
	if !inherit {
		base = map[string]string{"PATH": driver.DefaultPath}
	}
	run := map[string]string{
		EnvRunDir:       info.RunDir,
		EnvArtifactsDir: info.Workspace,
		EnvPromptFile:   promptFile,
	}
	if len(info.Prompt) <= MaxEnvPrompt {
		run[EnvPrompt] = info.Prompt
	}
	if info.CaseID != "" {
		run[EnvCaseID] = info.CaseID
	}
	return driver.BuildEnv(inherit, base, c.Env, run)
}

// StartsAtGate reports that Start starts the agent with
// driver.StartSession, through the run's sandbox, which holds it at the
// run's gate: the orchestrator starts the run before its turn (see
// orchestrator.GatedStarter).
func (c *Config) StartsAtGate() bool { return true }
