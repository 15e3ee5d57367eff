package cursor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/clock"
)

// TagEnv is set in the CLI's environment to a value unique to the run, so
// that processes the CLI leaves behind outside its process group can be
// found and stopped when the run is quiesced.
const TagEnv = "LUX_PROCESS_TAG"

// Start launches the CLI for one run:
//
//	<command> -p --output-format stream-json --model <model> [--trust] [--force] ...
//	    --workspace <workspace> [extraArgs...] -- <prompt>
//
// in the workspace, with standard input at end of file (the CLI reads a
// piped stdin to its end before it starts).
func (d *Config) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	withDefaults := d.withDefaults() // a Config made in Go need not be parsed
	d = &withDefaults
	if strings.TrimSpace(info.Prompt) == "" {
		return nil, errors.New("cursor: empty prompt: the CLI refuses to run without one")
	}
	if info.Workspace == "" {
		return nil, errors.New("cursor: no workspace to run in")
	}
	ws, err := filepath.Abs(info.Workspace)
	if err != nil {
		return nil, fmt.Errorf("cursor: workspace: %w", err)
	}
	path, err := driver.ResolveCommand(driver.CommandPath(info.CaseDir, d.Command))
	if err != nil {
		return nil, fmt.Errorf("cursor: %s not found (install it: %s): %w", d.Command, InstallHint, err)
	}
	env, err := d.env()
	if err != nil {
		return nil, err
	}
	tag, err := newTag()
	if err != nil {
		return nil, err
	}
	env = append(env, TagEnv+"="+tag)
	version := driver.IdentifyCLI(ctx, path).VersionText()
	args := d.args(ws, info.Prompt)
	sess := &session{tag: TagEnv + "=" + tag, grace: d.ResultGrace.D(), clk: clock.From(ctx)}
	pr := &protocol{s: sess, p: newParser(parseOptions{
		Model:      d.Model,
		CLIVersion: version,
		Partial:    d.StreamPartialOutput,
	})}
	base, err := driver.StartSession(ctx, driver.SessionOptions{
		Process: driver.ProcessSpec{
			Path:   path,
			Args:   args,
			Dir:    ws,
			Env:    env,
			Stderr: info.Stderr,
		},
		Protocol:         pr,
		Workspace:        ws,
		IdleTimeout:      d.IdleTimeout.D(),
		MaxLineBytes:     d.MaxLineBytes,
		MaxArtifactFiles: d.MaxArtifactFiles,
		KillGrace:        d.KillGrace.D(),
		// After the result line the CLI gets ResultGrace to exit by
		// itself before its group is stopped.
		ExitDrain:  d.ResultGrace.D(),
		CloseStdin: true,
		OnExit:     exitEvent,
		// Thinking and partial-output deltas are joined into one event
		// each; every line still shows the CLI is at work.
		TouchOnLine: true,
	})
	if err != nil {
		return nil, fmt.Errorf("cursor: %w", err)
	}
	sess.Session = base
	return sess, nil
}

// env is the CLI's environment: the host's (or, when not inherited, PATH
// with the system directories and HOME), then Env, then the API key. An
// empty CURSOR_API_KEY is left out.
func (d *Config) env() ([]string, error) {
	var base map[string]string
	if !d.Inherits(processDefaults) {
		base = map[string]string{"PATH": driver.DefaultPath}
		if home, err := os.UserHomeDir(); err == nil {
			base["HOME"] = home
		}
	}
	key := map[string]string{}
	if d.APIKeyEnv != "" {
		v := os.Getenv(d.APIKeyEnv)
		if v == "" {
			return nil, fmt.Errorf("cursor: apiKeyEnv: environment variable %s is not set; set it to a Cursor API key (dashboard: Integrations, User API Keys) or leave apiKeyEnv out to use a stored login", d.APIKeyEnv)
		}
		key["CURSOR_API_KEY"] = v
	}
	env := driver.BuildEnv(d.Inherits(processDefaults), base, d.Env, key)
	return slices.DeleteFunc(env, func(kv string) bool { return kv == "CURSOR_API_KEY=" }), nil
}

func newTag() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cursor: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// protocol adapts the parser to the driver toolkit's session and tells
// the session when the result line arrived.
type protocol struct {
	p *parser
	s *session // its Session is set after the start; Parse uses only resulted
}

func (pr *protocol) Parse(_ context.Context, line []byte, _ *driver.Stdin) ([]lux.Event, error) {
	evs := pr.p.Line(line)
	if len(evs) > 0 && evs[len(evs)-1].Terminal() {
		pr.s.resulted()
	}
	return evs, nil
}

// Answer is never called: the driver raises no interrupts.
func (pr *protocol) Answer(context.Context, lux.Interrupt, lux.Answer, *driver.Stdin) error {
	return errors.New("cursor: print mode takes no answers")
}

// hints name the fix for failures the CLI reports on stderr.
var hints = []struct{ marker, hint string }{
	{"Workspace Trust Required", `the workspace is not trusted: remove "skipTrust" or use "approval": "force"`},
	{"Authentication required", `not logged in: run "cursor-agent login" or set "apiKeyEnv"`},
	{"API key is invalid", `the API key was refused: check the variable "apiKeyEnv" names`},
	{"Named models unavailable", `this plan can only use "model": "auto"`},
	{"Cannot use this model", `pick a model listed by "cursor-agent models"`},
	{"ActionRequiredError", "the account needs attention (plan or usage limit)"},
	{"Run Everything", `a team policy forbids --force: use "approval": "reject"`},
}

// exitEvent is the error for a CLI that ended without a result line,
// which is how every real failure looks: a non-zero exit, the reason on
// stderr, and stdout cut short.
func exitEvent(st driver.ExitStatus, tail string) *lux.Event {
	reason := fmt.Sprintf("cursor-agent exited without a result line (%s)", st)
	for _, h := range hints {
		if strings.Contains(tail, h.marker) {
			reason += ": " + h.hint
			break
		}
	}
	if t := driver.Tail(tail, 2048); t != "" {
		reason += "\nstderr:\n" + t
	}
	return &lux.Event{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: reason}}
}

// session is the toolkit's session, plus the result grace and the
// stopping of what the CLI leaves outside its process group.
type session struct {
	*driver.Session
	tag   string
	grace time.Duration
	clk   clock.Clock // times the result grace

	mu        sync.Mutex
	graceOver chan struct{} // closed once the result grace has passed; nil before the result line
}

// resulted starts the result grace.
func (s *session) resulted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.graceOver != nil {
		return
	}
	over := make(chan struct{})
	s.graceOver = over
	s.clk.AfterFunc(s.grace, func() { close(over) })
}

// Quiesce stops the CLI. After a result line the CLI first gets what is
// left of the result grace to exit by itself. Then its process group is
// stopped, and every process that carries the run's tag in its
// environment: the CLI's worker-server starts in a session of its own and
// would otherwise outlive the run.
func (s *session) Quiesce(ctx context.Context) error {
	s.mu.Lock()
	over := s.graceOver
	s.mu.Unlock()
	if over != nil {
		select {
		case <-s.Exited():
		case <-over:
		case <-ctx.Done():
		}
	}
	err := s.Session.Quiesce(ctx)
	s.mu.Lock()
	killTagged(s.tag)
	s.mu.Unlock()
	return err
}

// Collect quiesces the CLI and returns the files in the workspace,
// without following symlinks.
func (s *session) Collect(ctx context.Context) ([]lux.Artifact, error) {
	if err := s.Quiesce(ctx); err != nil {
		return nil, err
	}
	return s.Session.Collect(ctx)
}

// Close quiesces the CLI and releases the session.
func (s *session) Close() error {
	err := s.Quiesce(context.Background())
	if cerr := s.Session.Close(); err == nil {
		err = cerr
	}
	return err
}

// StartsAtGate reports that Start starts the agent with
// driver.StartSession, through the run's sandbox, which holds it at the
// run's gate: the orchestrator starts the run before its turn (see
// orchestrator.GatedStarter).
func (d *Config) StartsAtGate() bool { return true }
