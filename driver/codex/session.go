package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/sandbox"
)

// HomeDir is the name of each run's CODEX_HOME inside the run directory.
const HomeDir = "codex-home"

// Start launches the CLI for one run: it writes the run's CODEX_HOME
// (config.toml, and auth.json when configured) under the run directory,
// starts the CLI in the workspace in its own process group, and returns
// the session reading its events.
func (c *Config) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	if sandbox.Confines(ctx) && c.Sandbox != "danger-full-access" {
		// The CLI's own sandbox (bubblewrap, seccomp) cannot run inside
		// Landlock, which refuses its mounts; lux's confines the CLI and
		// every command it runs instead.
		sandbox.NoteAgentSandbox(ctx, fmt.Sprintf("codex: sandbox_mode danger-full-access instead of %s (lux's sandbox confines it)", c.Sandbox))
		own := *c
		own.Sandbox = "danger-full-access"
		c = &own
	}
	path, err := driver.ResolveCommand(driver.CommandPath(info.CaseDir, c.Command))
	if err != nil {
		return nil, fmt.Errorf("codex: %q is not installed or not executable (install it with %q, or set command to its path): %w",
			c.Command, InstallHint, err)
	}
	workspace, err := filepath.Abs(info.Workspace)
	if err != nil {
		return nil, fmt.Errorf("codex: workspace: %w", err)
	}
	if st, err := os.Stat(workspace); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("codex: workspace %s is not a directory", workspace)
	}
	home, tempHome, err := homeFor(info.RunDir)
	if err != nil {
		return nil, err
	}
	s := &session{home: home, tempHome: tempHome, keepHome: c.KeepHome}
	if err := c.writeHome(home); err != nil {
		s.cleanHome()
		return nil, err
	}
	env := c.environ(info.RunDir, workspace, home)
	if err := c.checkEnv(env); err != nil {
		s.cleanHome()
		return nil, err
	}
	version := driver.IdentifyCLI(ctx, c.Command).VersionText()
	opts := driver.SessionOptions{
		Process: driver.ProcessSpec{
			Path:   path,
			Args:   c.args(info.Prompt),
			Dir:    workspace,
			Env:    env,
			Stderr: info.Stderr,
			URLs:   c.providerURLs(env),
		},
		Workspace:     workspace,
		IdleTimeout:   c.IdleTimeout.D(),
		MaxInterrupts: c.MaxInterrupts,
	}
	popts := parseOptions{Model: c.Model, CLIVersion: version}
	var last func() string
	if c.Mode == ModeAppServer {
		ap := &appSession{watch: retryWatch{limit: c.IdleTimeout.D()}, p: newAppProtocol(appOptions{
			parseOptions:    popts,
			Prompt:          info.Prompt,
			Cwd:             workspace,
			Sandbox:         c.Sandbox,
			ApprovalPolicy:  c.ApprovalPolicy,
			ReasoningEffort: c.ReasoningEffort,
			MaxInterrupts:   c.MaxInterrupts,
		})}
		opts.Protocol = ap
		opts.Input = append(ap.p.Start(), '\n')
		last = ap.lastError
	} else {
		ep := &execSession{watch: retryWatch{limit: c.IdleTimeout.D()}, p: newExecParser(popts)}
		opts.Protocol = ep
		opts.CloseStdin = true // exec reads stdin to its end before starting
		last = ep.lastError
	}
	opts.OnExit = func(st driver.ExitStatus, stderrTail string) *lux.Event {
		msg := last()
		if msg == "" {
			return nil
		}
		ev := errorEvent(fmt.Sprintf("codex exited before the turn ended (%s): %s", st, msg))
		return &ev
	}
	ds, err := driver.StartSession(ctx, opts)
	if err != nil {
		s.cleanHome()
		return nil, fmt.Errorf("codex: %w", err)
	}
	s.Session = ds
	return s, nil
}

// homeFor returns the run's CODEX_HOME: in the run directory, or in a
// temporary directory (removed on Close) when the run has none.
func homeFor(runDir string) (dir string, temp bool, err error) {
	if runDir == "" {
		dir, err := os.MkdirTemp("", "lux-codex-home-")
		if err != nil {
			return "", false, fmt.Errorf("codex: create CODEX_HOME: %w", err)
		}
		return dir, true, nil
	}
	dir, err = filepath.Abs(filepath.Join(runDir, HomeDir))
	if err != nil {
		return "", false, fmt.Errorf("codex: CODEX_HOME: %w", err)
	}
	return dir, false, nil
}

// session is a driver session that tidies the run's CODEX_HOME on Close.
type session struct {
	*driver.Session
	home      string
	tempHome  bool
	keepHome  bool
	cleanOnce sync.Once
}

// Close stops the CLI and releases the session. The run's CODEX_HOME
// keeps only its config.toml (everything unless keepHome is set; never
// the copied auth.json, nor the shell snapshots, which hold the agent's
// environment and so its keys).
func (s *session) Close() error {
	err := s.Session.Close()
	s.cleanHome()
	return err
}

func (s *session) cleanHome() {
	s.cleanOnce.Do(func() {
		if s.tempHome {
			_ = os.RemoveAll(s.home)
			return
		}
		_ = os.Remove(filepath.Join(s.home, "auth.json"))
		// A CLI stopped before it tidies up leaves its shell snapshots:
		// the agent's environment, keys included.
		_ = os.RemoveAll(filepath.Join(s.home, "shell_snapshots"))
		if s.keepHome {
			return
		}
		entries, _ := os.ReadDir(s.home)
		for _, e := range entries {
			if e.Name() != "config.toml" {
				_ = os.RemoveAll(filepath.Join(s.home, e.Name()))
			}
		}
	})
}

// execSession adapts the exec parser to the driver toolkit.
type execSession struct {
	mu    sync.Mutex
	p     *execParser
	watch retryWatch
}

func (e *execSession) Parse(_ context.Context, line []byte, _ *driver.Stdin) ([]lux.Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	events := e.p.Line(line)
	if stop := e.watch.observe(events, time.Now()); stop != nil {
		events = append(events, *stop)
	}
	return events, nil
}

func (e *execSession) Answer(context.Context, lux.Interrupt, lux.Answer, *driver.Stdin) error {
	return errors.New("codex: exec mode cannot take answers; use mode \"app-server\"")
}

func (e *execSession) lastError() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.p.LastError()
}

// appSession adapts the app-server protocol to the driver toolkit: it
// writes the protocol's messages to the CLI's stdin.
type appSession struct {
	mu    sync.Mutex
	p     *appProtocol
	watch retryWatch
}

func (a *appSession) Parse(ctx context.Context, line []byte, stdin *driver.Stdin) ([]lux.Event, error) {
	a.mu.Lock()
	events, send := a.p.Line(line)
	if stop := a.watch.observe(events, time.Now()); stop != nil {
		events = append(events, *stop)
	}
	a.mu.Unlock()
	for _, m := range send {
		if err := stdin.WriteLine(ctx, m); err != nil {
			if a.terminal() {
				break // the run has ended; the CLI may be gone
			}
			return events, fmt.Errorf("codex: write to app-server: %w", err)
		}
	}
	return events, nil
}

func (a *appSession) Answer(ctx context.Context, _ lux.Interrupt, ans lux.Answer, stdin *driver.Stdin) error {
	a.mu.Lock()
	reply, err := a.p.Answer(ans)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	return stdin.WriteLine(ctx, reply)
}

func (a *appSession) terminal() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.p.Terminal()
}

func (a *appSession) lastError() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.TrimSpace(a.p.LastError())
}

// providerURLs is the model provider's endpoint, which a sandbox lets the
// CLI reach: the configured provider's, else OpenAI's API and ChatGPT's
// (a ChatGPT login), unless the environment names a base URL.
func (c *Config) providerURLs(env []string) []string {
	if c.Provider != nil && c.Provider.BaseURL != "" {
		return []string{c.Provider.BaseURL}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENAI_BASE_URL=") && kv != "OPENAI_BASE_URL=" {
			return nil
		}
	}
	return []string{"https://api.openai.com", "https://chatgpt.com"}
}

// StartsAtGate reports that Start starts the agent with
// driver.StartSession, through the run's sandbox, which holds it at the
// run's gate: the orchestrator starts the run before its turn (see
// orchestrator.GatedStarter).
func (c *Config) StartsAtGate() bool { return true }
