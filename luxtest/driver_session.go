package luxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/sandbox"
)

// maxEvents stops a session that never ends.
const maxEvents = 100_000

// interruptCapability is the capability a driver must declare to send an
// interrupt of each kind.
var interruptCapability = map[lux.InterruptKind]lux.Capability{
	lux.Ask:     lux.CanAsk,
	lux.Approve: lux.CanApprove,
	lux.Custom:  lux.CanCustom,
}

// runScenario runs one scenario from Parse to Close.
func (c *checker) runScenario(ctx context.Context, plugin *lux.DriverPlugin, sc DriverScenario) {
	cfg, rt, ok := c.checkConfig(plugin, sc.Config)
	if !ok {
		return
	}
	tmp, err := os.MkdirTemp("", "luxtest-driver-")
	if err != nil {
		c.add("setup", "%v", err)
		return
	}
	defer os.RemoveAll(tmp)
	runDir, workspace, outside := filepath.Join(tmp, "run"), filepath.Join(tmp, "run", "artifacts"), filepath.Join(tmp, "outside")
	if err := plant(workspace, outside); err != nil {
		c.add("setup", "preparing the workspace: %v", err)
		return
	}
	if sc.Setup != nil {
		if err := sc.Setup(workspace); err != nil {
			c.add("setup", "the scenario's Setup failed: %v", err)
			return
		}
	}
	stderr := &lockedBuffer{}
	info := lux.StartInfo{CaseID: "luxtest", Prompt: sc.Prompt, RunDir: runDir, Workspace: workspace, Stderr: stderr}
	// The agent runs in the sandbox a run gets by default, as under the
	// orchestrator.
	// A package's testdata (a script a fake CLI replays) is readable.
	box := &sandbox.Run{Workspace: workspace, Scratch: runDir, Protect: []string{outside, os.TempDir()}}
	if td, err := filepath.Abs("testdata"); err == nil {
		box.Config.ReadOnly = []string{td}
	}
	startCtx := sandbox.WithRun(ctx, box)
	s, fl, err := guard(c.timeout, func() (lux.Session, error) { return cfg.Start(startCtx, info) })
	switch {
	case fl != "":
		c.add("start", "Start %s", fl)
		return
	case err != nil:
		c.add("start", "Start failed: %v", err)
		return
	case s == nil:
		c.add("start", "Start returned a nil session and no error")
		return
	}
	w := &walk{c: c, s: s, rt: rt, answer: sc.Answer}
	if w.answer == nil {
		w.answer = DefaultAnswer
	}
	w.events(ctx)
	out := Outcome{Workspace: workspace, RunDir: runDir, Events: w.seen}
	out.Artifacts, ok = w.finish(ctx, workspace)
	out.Stderr = stderr.String()
	if ok {
		c.checkWants(sc, out)
	}
	c.note("%s: %s", c.scenario, summarize(out))
}

// walk reads one session's events, answering its interrupts.
type walk struct {
	c        *checker
	s        lux.Session
	rt       lux.Runtime
	answer   func(lux.Interrupt) lux.Answer
	seen     []lux.Event
	ready    bool
	terminal *lux.Event
	answered int
}

// events reads events up to the terminal one, then checks that io.EOF
// follows.
func (w *walk) events(ctx context.Context) {
	c := w.c
	// A cancelled context first: it must be reported, and the session must
	// go on as if nothing happened.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	ev, fl, err := guardAfter(cctx, hungMargin(c.timeout), func() (lux.Event, error) { return w.s.Next(cctx) })
	switch {
	case fl != "":
		c.add("next-cancelled", "Next with a cancelled context %s; it must return ctx.Err() at once", fl)
		return
	case err == nil:
		c.add("next-cancelled", "Next with a cancelled context returned an event (%s); want ctx.Err() (context.Canceled)", describe(ev))
		if !w.handle(ctx, ev) {
			return
		}
	case !errors.Is(err, context.Canceled):
		c.add("next-cancelled", "Next with a cancelled context returned %v; want ctx.Err() (context.Canceled)", err)
	}
	for w.terminal == nil {
		if ctx.Err() != nil {
			c.add("cancelled", "the check was cancelled during the session: %v", context.Cause(ctx))
			return
		}
		if len(w.seen) >= maxEvents {
			c.add("terminal", "no terminal event after %d events", maxEvents)
			return
		}
		ev, err := w.next(ctx)
		if errors.Is(err, errAbandoned) {
			return
		}
		if err != nil && ctx.Err() != nil {
			c.add("cancelled", "the check was cancelled during the session: %v", context.Cause(ctx))
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.add("terminal", "Next returned io.EOF before any terminal event (done or error); a session ends with exactly one")
			} else {
				c.add("next", "Next failed before the terminal event: %v", err)
			}
			return
		}
		if !w.handle(ctx, ev) {
			return
		}
	}
	for range 2 {
		ev, err := w.next(ctx)
		switch {
		case errors.Is(err, errAbandoned):
			return
		case err == nil && ev.Terminal():
			c.add("terminal", "a second terminal event (%s) after %s; a session has exactly one", describe(ev), describe(*w.terminal))
			return
		case err == nil:
			c.add("eof", "Next returned another event (%s) after the terminal event; want io.EOF", describe(ev))
			return
		case !errors.Is(err, io.EOF):
			c.add("eof", "Next after the terminal event returned %v; want io.EOF", err)
			return
		}
	}
}

// errAbandoned is next's error for a Next call that hung or stalled (and
// was reported).
var errAbandoned = errors.New("luxtest: Next abandoned")

// hungMargin is how long after its context ends a call (Next, Respond)
// may take to return before it counts as hung: a tenth of the timeout, and at least
// five seconds, so that a loaded machine does not make a correct driver
// look hung.
func hungMargin(timeout time.Duration) time.Duration {
	return max(timeout/10, 5*time.Second)
}

// next calls Next with the scenario's timeout.
func (w *walk) next(ctx context.Context) (lux.Event, error) {
	c := w.c
	nctx, cancel := clock.WithTimeoutCause(ctx, c.timeout, context.DeadlineExceeded)
	defer cancel()
	ev, fl, err := guardAfter(nctx, hungMargin(c.timeout), func() (lux.Event, error) { return w.s.Next(nctx) })
	check := "next"
	switch {
	case w.terminal != nil:
		check = "eof"
	case w.answered > 0:
		check = "continue"
	}
	switch {
	case fl != "":
		c.add(check, "Next %s", fl)
		return ev, errAbandoned
	case err != nil && ctx.Err() == nil && nctx.Err() != nil:
		if check == "eof" {
			c.add("eof", "Next after the terminal event blocked for %s; want io.EOF at once", c.timeout)
		} else if check == "continue" {
			c.add(check, "no event within %s after an answer was delivered: the answer did not reach the agent, or the session did not resume", c.timeout)
		} else {
			c.add(check, "no event within %s (the agent stalled, or the driver lost its events)", c.timeout)
		}
		return ev, errAbandoned
	}
	return ev, err
}

// handle checks one event and answers it when it is an interrupt; false
// ends the walk.
func (w *walk) handle(ctx context.Context, ev lux.Event) bool {
	c := w.c
	w.seen = append(w.seen, ev)
	if msg := malformed(ev); msg != "" {
		c.add("event", "%s", msg)
	}
	if _, err := json.Marshal(ev); err != nil {
		c.add("event", "a %s event does not encode as JSON, so it cannot be recorded in events.jsonl: %v", ev.Type, err)
	}
	switch ev.Type {
	case lux.EventReady:
		if w.ready {
			c.add("order", "a second ready event")
		}
		w.ready = true
	case lux.EventProgress:
	case lux.EventInterrupt:
		if !w.ready {
			c.add("order", "an interrupt before ready; only progress may come before ready")
		}
		if ev.Interrupt == nil {
			return true // reported as malformed
		}
		return w.respond(ctx, *ev.Interrupt)
	case lux.EventDone, lux.EventError:
		if !w.ready && ev.Type == lux.EventDone {
			c.add("order", "done before ready; only progress, or an error for an agent that never became ready, may come before ready")
		}
		term := ev
		w.terminal = &term
	}
	return true
}

// respond checks that the interrupt's kind is declared and delivers the
// scenario's answer.
func (w *walk) respond(ctx context.Context, in lux.Interrupt) bool {
	c := w.c
	if capab, known := interruptCapability[in.Kind]; known && !w.rt.Has(capab) {
		c.add("capability", "the driver sent an %s interrupt (id %q) but its Runtime does not declare %q; declare it, or never send one",
			in.Kind, in.ID, capab)
	}
	a := w.answer(in)
	if err := a.Matches(in); err != nil {
		c.add("input", "the scenario's Answer does not answer the interrupt it was given: %v", err)
	}
	rctx, cancel := clock.WithTimeoutCause(ctx, c.timeout, context.DeadlineExceeded)
	defer cancel()
	_, fl, err := guardAfter(rctx, hungMargin(c.timeout), func() (struct{}, error) { return struct{}{}, w.s.Respond(rctx, a) })
	switch {
	case fl != "":
		c.add("respond", "Respond to %s interrupt %q %s", in.Kind, in.ID, fl)
		return false
	case err != nil:
		c.add("respond", "Respond to %s interrupt %q failed: %v", in.Kind, in.ID, err)
		return false
	}
	w.answered++
	return true
}

// finish quiesces, collects and closes the session; false when the
// artifacts could not be collected.
func (w *walk) finish(ctx context.Context, workspace string) ([]lux.Artifact, bool) {
	c := w.c
	// The agent is stopped and its evidence collected even when the
	// checks were cancelled, as the orchestrator does.
	ctx = context.WithoutCancel(ctx)
	collected := true
	for i := range 2 {
		fl, err := guardErr(c.timeout, func() error { return w.s.Quiesce(ctx) })
		which := "Quiesce"
		if i == 1 {
			which = "a second Quiesce"
		}
		switch {
		case fl != "":
			c.add("quiesce", "%s %s", which, fl)
		case err != nil:
			c.add("quiesce", "%s failed: %v; it must be safe to call more than once", which, err)
		}
		if fl != "" {
			break
		}
	}
	if w.terminal != nil && w.answered > 0 && w.terminal.Error != nil && w.terminal.Error.ExitReason == lux.ExitIdleTimeout {
		c.add("continue", "the run ended %s after an answer was delivered: the answer did not reach the agent, or the session did not resume (%s)",
			lux.ExitIdleTimeout, w.terminal.Error.Reason)
	}
	arts, fl, err := guard(c.timeout, func() ([]lux.Artifact, error) { return w.s.Collect(ctx) })
	switch {
	case fl != "":
		c.add("collect", "Collect %s", fl)
		collected = false
	case err != nil:
		c.add("collect", "Collect failed: %v", err)
		collected = false
	default:
		c.checkArtifacts(workspace, arts)
	}
	fl, err = guardErr(c.timeout, w.s.Close)
	switch {
	case fl != "":
		c.add("close", "Close %s", fl)
	case err != nil:
		c.add("close", "Close failed: %v", err)
	}
	return arts, collected
}

// checkWants checks the scenario's own expectations.
func (c *checker) checkWants(sc DriverScenario, out Outcome) {
	if sc.WantExit != "" {
		if got := out.ExitReason(); got != sc.WantExit {
			c.add("expect", "the run ended %s; want %s%s", orNone(string(got)), sc.WantExit, errorReason(out.Events))
		}
	}
	if sc.WantInterrupts != nil {
		var kinds []lux.InterruptKind
		for _, e := range out.Events {
			if e.Type == lux.EventInterrupt && e.Interrupt != nil {
				kinds = append(kinds, e.Interrupt.Kind)
			}
		}
		if !slices.Equal(kinds, sc.WantInterrupts) {
			c.add("expect", "the agent raised interrupts %v; want %v", kinds, sc.WantInterrupts)
		}
	}
	have := map[string]bool{}
	for _, a := range out.Artifacts {
		have[a.Path] = true
	}
	for _, p := range sc.WantArtifacts {
		if !have[path.Clean(p)] {
			c.add("expect", "Collect did not return %q", p)
		}
	}
	if sc.Check != nil {
		if err := sc.Check(out); err != nil {
			c.add("expect", "%v", err)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "without a terminal event"
	}
	return s
}

func errorReason(events []lux.Event) string {
	for _, e := range events {
		if e.Type == lux.EventError && e.Error != nil && e.Error.Reason != "" {
			return " (the error event says: " + e.Error.Reason + ")"
		}
	}
	return ""
}

// summarize describes a session in one line.
func summarize(out Outcome) string {
	counts := map[lux.EventType]int{}
	var order []lux.EventType
	for _, e := range out.Events {
		if counts[e.Type] == 0 {
			order = append(order, e.Type)
		}
		counts[e.Type]++
	}
	parts := make([]string, 0, len(order)+1)
	for _, t := range order {
		if counts[t] == 1 {
			parts = append(parts, string(t))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", counts[t], t))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no events")
	}
	return fmt.Sprintf("%s; exit %s; %s", strings.Join(parts, ", "), orNone(string(out.ExitReason())), plural(len(out.Artifacts), "artifact"))
}

// lockedBuffer is the agent's stderr: drivers write to it from their own
// goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
