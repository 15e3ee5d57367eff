package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/sandbox"
)

// protocol speaks the CLI's stream-json over the toolkit's session: it
// parses stdout lines, refuses the control requests it cannot answer, and
// writes answers as control responses.
type protocol struct {
	mu sync.Mutex // Parse runs on the reader, Answer on the caller of Respond
	p  *parser
}

func (pr *protocol) Parse(ctx context.Context, line []byte, stdin *driver.Stdin) ([]lux.Event, error) {
	pr.mu.Lock()
	out := pr.p.Line(line)
	pr.mu.Unlock()
	for _, r := range out.Replies {
		if err := stdin.WriteLine(ctx, r); err != nil && !errors.Is(err, driver.ErrStdinClosed) {
			return out.Events, err
		}
	}
	return out.Events, nil
}

func (pr *protocol) Answer(ctx context.Context, in lux.Interrupt, a lux.Answer, stdin *driver.Stdin) error {
	pr.mu.Lock()
	b, err := pr.p.Answer(a)
	pr.mu.Unlock()
	if err != nil || b == nil {
		return err
	}
	return stdin.WriteLine(ctx, b)
}

// Start launches the CLI in info.Workspace for one run: the prompt goes
// in as the first stream-json user message and stdin stays open for the
// answers to the CLI's control requests. The run's config and temp
// directories are made under info.RunDir (a temporary directory when it
// is empty).
func (c *Config) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	withDefaults := c.withDefaults() // a Config made in Go need not be parsed
	c = &withDefaults
	path, err := driver.ResolveCommand(driver.CommandPath(info.CaseDir, c.command()))
	if err != nil {
		return nil, fmt.Errorf("claudecode: %s is not installed or not executable (%v); install it with: %s", c.command(), err, InstallHint)
	}
	if info.Workspace == "" {
		return nil, errors.New("claudecode: start: no workspace")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("claudecode: %w", err)
	}
	paths, err := c.paths(cwd)
	if err != nil {
		return nil, err
	}
	s := &session{}
	runDir := info.RunDir
	if runDir == "" {
		if s.scratch, err = os.MkdirTemp("", "lux-claude-"); err != nil {
			return nil, fmt.Errorf("claudecode: %w", err)
		}
		runDir = s.scratch
	}
	if err := c.launch(ctx, s, runDir, path, paths, info); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// launch makes the run's directories and starts the CLI into s.
func (c *Config) launch(ctx context.Context, s *session, runDir, path string, paths resolvedPaths, info lux.StartInfo) error {
	dirs, err := makeRunDirs(runDir)
	if err != nil {
		return err
	}
	s.tmp = dirs.tmp
	env, err := c.environ(dirs)
	if err != nil {
		return err
	}
	s.Session, err = driver.StartSession(ctx, driver.SessionOptions{
		Process: driver.ProcessSpec{
			Path: path, Args: append(c.args(paths), ownSandbox(ctx, paths)...), Dir: info.Workspace, Env: env, Stderr: info.Stderr,
			URLs: defaultEndpoint(env),
		},
		Protocol:      &protocol{p: newParser()},
		Workspace:     info.Workspace,
		IdleTimeout:   c.IdleTimeout.D(),
		MaxInterrupts: c.MaxInterrupts,
		Input:         append(userMessage(info.Prompt), '\n'),
		OnExit:        onExit,
		// Stream events are activity too: a long answer being written
		// keeps the run alive.
		TouchOnLine: true,
	})
	if err != nil {
		return fmt.Errorf("claudecode: %w", err)
	}
	return nil
}

// onExit explains a CLI that exited without a result line, from the end of
// its stderr.
func onExit(status driver.ExitStatus, stderrTail string) *lux.Event {
	tail := strings.TrimSpace(stderrTail)
	if tail == "" {
		return nil
	}
	lines := strings.Split(tail, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if strings.HasPrefix(last, "error:") || strings.HasPrefix(last, "Error:") {
		return &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{
			ExitReason: lux.ExitError,
			Reason:     fmt.Sprintf("claude exited with %s: %s", describeExit(status), last),
		}}
	}
	return nil
}

// session is the toolkit's session plus the run's scratch directories,
// removed on Close.
type session struct {
	*driver.Session
	tmp     string // the run's TMPDIR
	scratch string // a directory made for a run without a run directory
}

func (s *session) Close() error {
	err := s.Session.Close()
	s.cleanup()
	return err
}

func (s *session) cleanup() {
	if s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
	}
	if s.scratch != "" {
		_ = os.RemoveAll(s.scratch)
	}
}

func describeExit(st driver.ExitStatus) string {
	if st.Signal != "" {
		return "signal " + st.Signal
	}
	return fmt.Sprintf("code %d", st.Code)
}

// offSettings turn the CLI's own sandbox (bubblewrap, which cannot run
// inside Landlock) off.
const offSettings = `{"sandbox":{"enabled":false}}`

// ownSandbox are the flags that turn the CLI's own sandbox off when lux's
// confines it, and says so in the record. A config with its own settings
// file keeps it: the file decides, and the record says that.
func ownSandbox(ctx context.Context, p resolvedPaths) []string {
	if !sandbox.Confines(ctx) {
		return nil
	}
	if p.settings != "" {
		sandbox.NoteAgentSandbox(ctx, "claude-code: its own sandbox is as its settings file says (lux's confines it; bubblewrap cannot run inside Landlock)")
		return nil
	}
	sandbox.NoteAgentSandbox(ctx, "claude-code: --settings "+offSettings+" (lux's sandbox confines it)")
	return []string{"--settings", offSettings}
}

// apiURL is the Anthropic API the CLI calls when no base URL is set.
const apiURL = "https://api.anthropic.com"

// defaultEndpoint is the API the CLI reaches when its environment names
// none, for a sandbox that lets it reach only its model endpoint.
func defaultEndpoint(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "ANTHROPIC_BASE_URL=") && kv != "ANTHROPIC_BASE_URL=" {
			return nil
		}
	}
	return []string{apiURL}
}

// StartsAtGate reports that Start starts the agent with
// driver.StartSession, through the run's sandbox, which holds it at the
// run's gate: the orchestrator starts the run before its turn (see
// orchestrator.GatedStarter).
func (c *Config) StartsAtGate() bool { return true }
