package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/record"
)

// AttemptsDir is the directory of a run's record holding the records of
// its earlier attempts, one directory per attempt: attempts/1, ...
const AttemptsDir = record.AttemptsDir

// attempt runs p, and again, up to Options.Retries more times, while a
// run fails for infrastructure before the agent did anything (see
// classify), waiting Options.RetryBackoff (doubled each time) on ctx's
// clock between attempts. The result is the last attempt's; with retries
// allowed its run.json lists every attempt, and the earlier attempts'
// records move under its attempts/<n>/. lost are the directories of
// attempts lost elsewhere (see Execution.Lost): the first attempts.
func (o *Orchestrator) attempt(ctx context.Context, p *plan, info runInfo, lost []string) (*record.Run, error) {
	if o.opts.Retries <= 0 && len(lost) == 0 {
		return o.execute(ctx, p, info)
	}
	var (
		attempts []record.Attempt
		dirs     []string
		backoff  = o.opts.RetryBackoff
	)
	for _, d := range lost {
		if !filepath.IsAbs(d) {
			d = filepath.Join(o.opts.RunsRoot, filepath.FromSlash(d))
		}
		rel, err := filepath.Rel(o.opts.RunsRoot, d)
		if err != nil || !filepath.IsLocal(rel) || !record.IsStampName(filepath.Base(d)) {
			continue // not a run directory of this runs root
		}
		if _, err := os.Lstat(d); err != nil {
			continue // gone already: kept by an attempt before this one
		}
		attempts = append(attempts, lostAttempt(d, len(attempts)+1))
		dirs = append(dirs, d)
	}
	kept := len(attempts)
	var last *record.Run // the attempt before this one
	var lastErr error
	for n := kept + 1; ; n++ {
		res, err := o.execute(ctx, p, info)
		if res == nil && last != nil && errors.Is(err, errNotStarted) {
			// Cancelled while the next attempt waited for its turn: the
			// last attempt is the run.
			attempts[len(attempts)-1].Retried, attempts[len(attempts)-1].BackoffMs = false, 0
			return last, o.keepAttempts(last, attempts, dirs[:len(dirs)-1], lastErr)
		}
		if res == nil {
			return res, err
		}
		a := record.Attempt{Attempt: n, StartedAt: res.Metadata.StartedAt, EndedAt: res.Metadata.EndedAt,
			ExitReason: res.Metadata.ExitReason, Reason: res.Metadata.Reason}
		if f := res.Metadata.OperationalFailure; f != nil {
			a.Phase = f.Phase
		}
		a.Failure, a.Cause = classify(res)
		retry := err == nil && a.Failure == record.FailureInfrastructure && n-kept <= o.opts.Retries && ctx.Err() == nil
		if retry {
			a.Retried, a.BackoffMs = true, backoff.Milliseconds()
		}
		attempts = append(attempts, a)
		if !retry {
			return res, o.keepAttempts(res, attempts, dirs, err)
		}
		if sleep(ctx, backoff) != nil { // cancelled while waiting: this attempt is the run
			attempts[n-1].Retried, attempts[n-1].BackoffMs = false, 0
			return res, o.keepAttempts(res, attempts, dirs, err)
		}
		dirs = append(dirs, res.Dir)
		last, lastErr = res, err
		backoff = min(2*backoff, 8*o.opts.RetryBackoff)
	}
}

// CauseLost is the cause of an attempt lost with the process executing it
// (see Execution.Lost).
const CauseLost = "lost"

// lostAttempt is the n-th attempt, lost with its process, recorded in dir:
// it started at the time the directory is named for, and was last seen
// at its last recorded event (its start when it recorded none).
func lostAttempt(dir string, n int) record.Attempt {
	a := record.Attempt{Attempt: n, ExitReason: lux.ExitError, Failure: record.FailureInfrastructure, Cause: CauseLost, Retried: true,
		Reason: "lost: the process executing it stopped before it was recorded"}
	if name := filepath.Base(dir); record.IsStampName(name) {
		if t, err := time.Parse("2006-01-02T15-04-05", name[:19]); err == nil {
			ms, _ := strconv.Atoi(name[20:23])
			a.StartedAt = t.Add(time.Duration(ms) * time.Millisecond)
		}
	}
	a.EndedAt = a.StartedAt
	if events, _ := record.ReadEvents(filepath.Join(dir, record.EventsFile)); len(events) > 0 {
		if last := events[len(events)-1].Time; !last.IsZero() {
			a.EndedAt = last
		}
	}
	return a
}

// keepAttempts moves the earlier attempts' records (each with its own
// seal) under the last one's directory and rewrites its run.json, sealed,
// with the attempts listed. err is the
// last attempt's error, returned unless keeping failed.
func (o *Orchestrator) keepAttempts(res *record.Run, attempts []record.Attempt, dirs []string, err error) error {
	for i, d := range dirs {
		rel := filepath.Join(AttemptsDir, strconv.Itoa(i+1))
		dst := filepath.Join(res.Dir, rel)
		if merr := os.MkdirAll(filepath.Dir(dst), record.DirPerm); merr != nil {
			return o.attemptsFailed(res, err, merr)
		}
		if merr := os.Rename(d, dst); merr != nil {
			return o.attemptsFailed(res, err, merr)
		}
		attempts[i].Dir = filepath.ToSlash(rel)
	}
	res.Metadata.Attempts = attempts
	key, kerr := o.sealKey()
	if kerr != nil {
		return o.attemptsFailed(res, err, kerr)
	}
	if werr := o.writer.WriteJSONSealed(res.Dir, "run", key, record.MetadataFile, res.Metadata); werr != nil {
		return o.attemptsFailed(res, err, werr)
	}
	return err
}

func (o *Orchestrator) attemptsFailed(res *record.Run, err, kerr error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("orchestrator: run %s: keeping its earlier attempts: %w", res.Dir, kerr)
}

// sleep waits d on ctx's clock, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	done := make(chan struct{})
	t := clock.From(ctx).AfterFunc(d, func() { close(done) })
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// Signatures of a model API or network failure, in an agent's error
// reason or in the driver's own progress reports (Claude Code's api-error,
// Codex's codex-error), with the cause each stands for.
var infraSignatures = []struct {
	cause string
	re    *regexp.Regexp
}{
	{"overloaded", regexp.MustCompile(`(?i)overloaded|\b529\b`)},
	{"rate-limited", regexp.MustCompile(`(?i)rate[ _-]?limit|too many requests|\b429\b`)},
	{"server-error", regexp.MustCompile(`(?i)internal server error|bad gateway|service unavailable|gateway time-?out|\b50[0234]\b`)},
	{"connection", regexp.MustCompile(`(?i)connection (refused|reset|error|closed)|econnrefused|econnreset|etimedout|enotfound|could not (connect|resolve)|unable to connect|failed to connect|network error|dial tcp|no such host|stream disconnected|reconnecting`)},
}

// statusField finds an HTTP status in a driver's structured report.
var statusField = regexp.MustCompile(`"(?:status|apiErrorStatus|httpStatus|statusCode)"\s*:\s*(\d{3})`)

// classify says whose the failure of a finished run was (see
// record.FailureClass) and what the classification rests on; "" for a run
// that ended done or was cancelled. A run in which the agent did anything
// (a message, reasoning, a tool call or result, a question) is the
// agent's, whatever ended it. Before that: a workspace that could not be
// made (setup), a driver that could not start or an agent that ended
// before it was ready (start), an agent that ended without a terminal
// event (crash), an answerer that could not
// prepare (answerer), or an error whose reason or the driver's reports
// show an overloaded, rate-limited or failing model API or an unreachable
// one, are infrastructure.
func classify(res *record.Run) (record.FailureClass, string) {
	m := res.Metadata
	switch m.ExitReason {
	case lux.ExitDone:
		return "", ""
	case lux.ExitCancelled:
		return "", "cancelled"
	}
	events, _ := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
	if agentActed(events) {
		return record.FailureAgent, "agent-worked"
	}
	if f := m.OperationalFailure; f != nil {
		switch f.Phase {
		case record.PhaseSetup:
			return record.FailureInfrastructure, "setup"
		case record.PhaseAnswerer:
			return record.FailureInfrastructure, "answerer"
		case record.PhaseDriver:
			if m.Driver.AgentID == "start-failed" {
				return record.FailureInfrastructure, "start"
			}
			if cause := infraCause(m.Reason, events); cause != "" {
				return record.FailureInfrastructure, cause
			}
			return record.FailureInfrastructure, "crash"
		}
		return record.FailureAgent, string(f.Phase)
	}
	if cause := infraCause(m.Reason, events); cause != "" {
		return record.FailureInfrastructure, cause
	}
	if !slices.ContainsFunc(events, func(e lux.Event) bool { return e.Type == lux.EventReady }) {
		return record.FailureInfrastructure, "start" // it ended before it was ready: the CLI did not come up
	}
	return record.FailureAgent, "agent-error"
}

// agentActed reports whether the trajectory shows the agent doing
// anything: a message, reasoning, a tool call or result, an interrupt.
func agentActed(events []lux.Event) bool {
	for _, e := range events {
		switch {
		case e.Type == lux.EventInterrupt:
			return true
		case e.Type == lux.EventProgress && e.Progress != nil:
			switch e.Progress.Kind {
			case lux.KindAgentMessage, lux.KindReasoning, lux.KindToolCall, lux.KindToolResult:
				return true
			}
		}
	}
	return false
}

// infraCause finds a model API or network failure in reason or in the
// driver's other progress reports (statuses first), or "".
func infraCause(reason string, events []lux.Event) string {
	texts := []string{reason}
	for _, e := range events {
		if e.Type == lux.EventProgress && e.Progress != nil && len(e.Progress.Payload) > 0 {
			texts = append(texts, string(e.Progress.Payload))
		}
	}
	for _, t := range texts {
		for _, m := range statusField.FindAllStringSubmatch(t, -1) {
			switch code, _ := strconv.Atoi(m[1]); {
			case code == 529:
				return "overloaded"
			case code == 429:
				return "rate-limited"
			case code >= 500 && code <= 599:
				return "server-error"
			}
		}
	}
	for _, t := range texts {
		for _, s := range infraSignatures {
			if s.re.MatchString(t) {
				return s.cause
			}
		}
	}
	return ""
}
