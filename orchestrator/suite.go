package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// manifestInterval is the least time between two rewrites of suite.json
// while a suite runs: transitions closer together are written together.
// A large suite's manifest takes longer to write: the wait after a write is
// then twenty times what it took (the writer's share of the harness's time
// stays about a twentieth whatever the suite's size), up to
// manifestMaxInterval.
const (
	manifestInterval    = 50 * time.Millisecond
	manifestMaxInterval = time.Second
)

// manifestWait is the wait after a rewrite of suite.json that took took.
func manifestWait(took time.Duration) time.Duration {
	return min(max(manifestInterval, 20*took), manifestMaxInterval)
}

// RunSuite runs every case Options.Repetitions times, Options.Concurrency
// agents at a time, and records the suite: suite.json, rewritten as items
// start and finish, and suite-summary.json at the end. Runs executed here
// are pipelined (see agentGate): up to twice Options.Concurrency runs are
// in flight, each prepared before it starts and recorded after its agent
// is gone while other agents run; a run starts (its startedAt, time limit
// and durations begin) once it has its turn, in the suite's order.
//
// Every case is validated first; when any is invalid nothing runs and the
// error names each problem of each case. Afterwards one run's failure
// never stops the others. When ctx is cancelled no further run starts, the
// runs in flight end as cancelled, the items never started are marked
// skipped (a run prepared but not started is discarded, leaving no
// record), the suite's status is cancelled, and RunSuite returns the
// complete result with an error wrapping ctx's error. ResumeSuite runs
// what such a suite is missing.
func (o *Orchestrator) RunSuite(ctx context.Context, cases []*lux.Case) (*record.Suite, error) {
	plans, err := o.suitePlans(cases)
	if err != nil {
		return nil, err
	}
	if err := record.CheckRoot(o.opts.RunsRoot); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	start := time.Now().UTC()
	dir, err := record.ReserveSuiteDir(o.opts.RunsRoot, start)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	reps := o.opts.Repetitions
	m := &record.SuiteManifest{
		SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, SuiteID: filepath.Base(dir), StartedAt: start,
		Status: record.SuiteRunning, Repetitions: reps, Environment: o.env, Owner: record.CurrentOwner(),
		Label: o.opts.Label, GitBranch: workingBranch(ctx),
		Items: make([]record.SuiteItem, 0, len(plans)*reps),
	}
	jobs := make([]job, 0, len(plans)*reps)
	for _, p := range plans {
		for rep := 1; rep <= reps; rep++ {
			jobs = append(jobs, job{p: p, rep: rep, item: len(m.Items)})
			m.Items = append(m.Items, record.SuiteItem{CaseID: p.caseID, Repetition: rep, Cluster: p.c.Cluster,
				CasePath: absPath(p.c.Path), Status: record.ItemPending})
		}
	}
	m.Concurrency = min(o.opts.Concurrency, len(jobs))
	return o.runJobsWithHooks(ctx, dir, m, jobs)
}

// job is one run of a suite: a plan at a repetition, recorded as the
// manifest's item-th item.
type job struct {
	p    *plan
	rep  int
	item int
	turn *turn // its turn at the agent gate, in the order dispatched
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// suitePlans validates the cases of a suite: every problem of every case,
// and two cases under one id, refuse it.
func (o *Orchestrator) suitePlans(cases []*lux.Case) ([]*plan, error) {
	if o.envErr != nil {
		return nil, o.envErr
	}
	if len(cases) == 0 {
		return nil, errors.New("orchestrator: the suite has no cases")
	}
	plans := make([]*plan, len(cases))
	var bad []error
	firstOf := map[string]int{}
	for i, c := range cases {
		p, err := o.plan(c)
		if err != nil {
			bad = append(bad, fmt.Errorf("cases[%d]: %w", i, err))
			continue
		}
		// Runs of one canonical id are repetitions of one measurement;
		// two different cases under one id would be pooled silently.
		if j, dup := firstOf[p.caseID]; dup {
			bad = append(bad, fmt.Errorf("cases[%d]: %w: id: %q is also the id of cases[%d] (give each case its own id; use %s to run a case again)",
				i, lux.ErrInvalidCase, p.caseID, j, o.optionName("Repetitions")))
			continue
		}
		firstOf[p.caseID] = i
		plans[i] = p
	}
	if len(bad) > 0 {
		return nil, &suiteRefused{total: len(cases), errs: bad}
	}
	return plans, nil
}

// runJobs runs the jobs of the suite in dir, whose manifest m is written
// as they start and end, then finishes the suite: its status, and
// suite-summary.json. It clears each of jobs once dispatched: the
// caller's slice would otherwise keep every case of the suite alive until
// the suite ends.
func (o *Orchestrator) runJobs(ctx context.Context, dir string, m *record.SuiteManifest, jobs []job) (*record.Suite, error) {
	w := newManifestWriter(m, func(data []byte) error { return o.writeSuiteFile(dir, record.SuiteFile, data) })
	total := len(jobs)
	o.progress(Update{Kind: SuiteStarted, SuiteDir: dir, Total: total})

	budget := o.newSuiteBudget()
	workers, gate := o.pipeline(m.Concurrency)
	next := make(chan job)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	finished := 0
	written := make([]*record.RunBrief, len(m.Items))
	for range workers {
		wg.Go(func() {
			slot := &liveSlot{}
			defer slot.release()
			for j := range next {
				t := j.turn
				if ctx.Err() != nil || budget.hold() {
					t.giveUp()
					continue // cancelled (or over budget) while dispatched: never started, marked skipped below
				}
				i := j.item
				// The run starts once it has its turn (see agentGate).
				started := sync.OnceFunc(func() {
					w.update(func(m *record.SuiteManifest) { m.Items[i].Status = record.ItemRunning })
					o.progress(Update{Kind: RunStarted, SuiteDir: dir, Index: i, Total: total, CaseID: j.p.caseID, Repetition: j.rep})
				})
				if t == nil {
					started() // not gated: it starts now (or elsewhere)
				}
				res, err := o.run(ctx, j.p, runInfo{suiteID: m.SuiteID, repetition: j.rep, slot: slot, turn: t, started: started}, i)
				t.giveUp()
				t.release()
				if res == nil && errors.Is(err, errNotStarted) {
					continue // stopped while it waited for its turn: no record, marked skipped below
				}
				started()
				budget.add(res)
				written[i] = o.writtenBrief(res, err)
				item := completedItem(dir, res, err)
				w.update(func(m *record.SuiteManifest) {
					item.CaseID, item.Repetition, item.Cluster, item.CasePath = m.Items[i].CaseID, m.Items[i].Repetition, m.Items[i].Cluster, m.Items[i].CasePath
					m.Items[i] = item
				})
				doneMu.Lock()
				finished++
				n := finished
				doneMu.Unlock()
				o.progress(finishedUpdate(Update{SuiteDir: dir, Index: i, Total: total, Done: n, CaseID: j.p.caseID, Repetition: j.rep}, res, err))
			}
		})
	}
dispatch:
	for k, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		// Runs take their turns at the agent gate in the suite's order.
		j.turn = gate.turn(k)
		select {
		case next <- j:
			// A job dispatched is its worker's alone: its plan (and case)
			// go with its run, not when the suite ends.
			jobs[k] = job{}
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	clear(jobs) // those never dispatched
	wg.Wait()
	cancelled := ctx.Err() != nil
	end := time.Now().UTC()
	var status record.SuiteStatus
	w.update(func(m *record.SuiteManifest) {
		status = record.SuitePassed
		for i := range m.Items {
			it := &m.Items[i]
			if it.Status != record.ItemCompleted {
				it.Status = record.ItemSkipped
				cancelled = true
			}
			if v := it.Verdict(); v == record.VerdictFail || v == record.VerdictError {
				status = record.SuiteFailed
			}
		}
		if cancelled && anySkippedOrCancelled(m.Items) {
			status = record.SuiteCancelled
		}
		m.Status, m.EndedAt = status, &end
		budget.mark(m)
	})
	writeErr := w.close()

	res := &record.Suite{Dir: dir, Manifest: m, Written: written}
	res.Summary = summarize(res, status)
	if err := o.writeSuiteJSON(dir, record.SuiteSummaryFile, res.Summary); err != nil && writeErr == nil {
		writeErr = err
	}
	o.progress(Update{Kind: SuiteEnded, SuiteDir: dir, Total: total, Done: finished})
	switch {
	case writeErr != nil:
		return res, fmt.Errorf("orchestrator: suite %s: the record is incomplete: %w", dir, writeErr)
	case ctx.Err() == nil && budget.stopped():
		return res, budget.err(dir)
	case status == record.SuiteCancelled:
		return res, fmt.Errorf("orchestrator: suite %s cancelled: %w", dir, context.Cause(ctx))
	}
	return res, nil
}

// pipeline returns how many runs of a suite at concurrency n may be in
// flight, and the gate that bounds the agents among them to n (nil: none).
// Runs executed here are pipelined: twice n runs in flight, so that the
// harness's work before and after each agent overlaps other runs' agents
// (see agentGate). A suite budget counts a run's spending once it is
// finished, and another executor runs agents elsewhere: then n runs are in
// flight, each whole.
func (o *Orchestrator) pipeline(n int) (int, *agentGate) {
	n = max(1, n)
	if o.opts.Executor != nil || !o.opts.SuiteBudget.IsZero() {
		return n, nil
	}
	return 2 * n, newAgentGate(n)
}

// suiteRefused lists the invalid cases of a suite; errors.Is sees the
// sentinels of each (lux.ErrInvalidCase, ErrMissingCapability).
type suiteRefused struct {
	total int
	errs  []error
}

func (e *suiteRefused) Error() string {
	lines := make([]string, len(e.errs))
	for i, err := range e.errs {
		lines[i] = err.Error()
	}
	return fmt.Sprintf("orchestrator: suite refused, %d of %d cases are invalid:\n%s", len(e.errs), e.total, strings.Join(lines, "\n"))
}

func (e *suiteRefused) Unwrap() []error { return e.errs }

func anySkippedOrCancelled(items []record.SuiteItem) bool {
	for _, it := range items {
		if it.Status == record.ItemSkipped || it.ExitReason == lux.ExitCancelled {
			return true
		}
	}
	return false
}

// completedItem is the manifest entry of a finished run. A run whose
// record could not be written completely has no verdict, whatever its
// grading said: the evidence for it is not on disk. casePassed is false
// for a run the agent failed, null for one without a verdict.
func completedItem(suiteDir string, res *record.Run, err error) record.SuiteItem {
	it := record.SuiteItem{Status: record.ItemCompleted, ExitReason: lux.ExitError, RunVerdict: finishedVerdict(res, err)}
	if res != nil {
		if rel, rerr := filepath.Rel(suiteDir, res.Dir); rerr == nil {
			it.RunDir = filepath.ToSlash(rel)
		}
		it.ExitReason = res.Metadata.ExitReason
		if res.Grading != nil {
			it.Passed, it.Score = res.Grading.Passed, res.Grading.Score
		}
		if res.Failure != nil {
			it.Error = res.Failure.Error()
		} else if res.Metadata.ExitReason != lux.ExitDone {
			it.Error = res.Metadata.Reason
		}
	}
	if recordFailed(res, err) {
		it.Error = err.Error()
	}
	switch it.RunVerdict {
	case record.VerdictFail:
		no := false
		it.Passed = &no
	case record.VerdictError, record.VerdictCancelled:
		it.Passed = nil
	}
	return it
}

// summarize builds the summary of the suite s from its manifest and its
// runs' records: the briefs of those it wrote, taken as it wrote them, and
// of the others (an earlier part of a resumed suite) read from disk, one
// run at a time.
func summarize(s *record.Suite, status record.SuiteStatus) *record.SuiteSummary {
	b := record.NewSummaryBuilder(s.Manifest.SuiteID)
	for i, it := range s.Manifest.Items {
		var r *record.RunBrief
		if it.RunDir != "" {
			r = s.ItemBrief(i)
		}
		b.AddBrief(i, it, r)
	}
	return b.Build(status, time.Now())
}

// writtenBrief is the brief of the run.json and grading.json of a finished
// run as this process wrote them: all that the suite keeps of the run
// once its files are written, so that it holds a few hundred bytes per
// run, not the run's records. Nil when its record is not complete (a
// reader would find none) or another executor wrote it.
func (o *Orchestrator) writtenBrief(res *record.Run, err error) *record.RunBrief {
	if o.opts.Executor != nil || res == nil || res.Metadata == nil || recordFailed(res, err) {
		return nil
	}
	return record.NewRunBrief(res.Metadata, res.Grading)
}

// manifestWriter owns suite.json: updates change the manifest in memory
// under a lock, and one goroutine writes the latest state, at most every
// manifestInterval, so writes are serialized and never pile up.
type manifestWriter struct {
	mu    sync.Mutex
	m     *record.SuiteManifest
	write func(data []byte) error // replaces suite.json, sealed
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	err   error
}

func newManifestWriter(m *record.SuiteManifest, write func(data []byte) error) *manifestWriter {
	w := &manifestWriter{m: m, write: write, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.flush()
	go w.loop()
	return w
}

func (w *manifestWriter) update(f func(m *record.SuiteManifest)) {
	w.mu.Lock()
	f(w.m)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *manifestWriter) loop() {
	defer close(w.done)
	t := time.NewTimer(0)
	<-t.C
	for {
		select {
		case <-w.kick:
			start := time.Now()
			w.flush()
			t.Reset(manifestWait(time.Since(start)))
			select {
			case <-t.C:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

func (w *manifestWriter) flush() {
	w.mu.Lock()
	data, err := json.MarshalIndent(w.m, "", "  ")
	w.mu.Unlock()
	if err == nil {
		err = w.write(append(data, '\n'))
	}
	if err != nil && w.err == nil {
		w.err = err
	}
}

// close stops the writer and writes the final state.
func (w *manifestWriter) close() error {
	close(w.stop)
	<-w.done
	w.flush()
	return w.err
}
