package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// plannedUnit is a unit to run.
type plannedUnit struct {
	key  unitKey
	id   string
	cand *Candidate
	c    *lux.Case
	// judgeCalls is the most judge calls the unit can make (a grader
	// unit), reserved against the budget before it starts.
	judgeCalls int
}

// tree is a candidate's materialized tree.
type tree struct {
	mu   sync.Mutex
	dir  string
	hash string
	orch map[string]*orchestrator.Orchestrator // by profile
}

// schedule lists every unit in rounds of repetitions: every candidate,
// profile, split and case once, then again for the next repetition. (A
// later sequential mode can stop between rounds.)
func (s *state) schedule() []plannedUnit {
	var out []plannedUnit
	for rep := 1; rep <= s.camp.Repetitions.Promotion; rep++ {
		for _, cand := range s.cands {
			for _, profile := range s.camp.profileNames() {
				for _, split := range s.corp.splits {
					for _, lc := range s.corp.cases[split] {
						k := unitKey{cand.ID, cand.Hash, profile, split, lc.CanonicalID(), rep}
						pu := plannedUnit{key: k, id: k.id(), cand: cand, c: lc}
						if lb := s.corp.labels[lc.ID]; lb != nil {
							pu.judgeCalls = maxRubricCalls(lb.run)
						}
						out = append(out, pu)
					}
				}
			}
		}
	}
	return out
}

// execute writes the manifest, runs the missing units and decides.
func (s *state) execute(ctx context.Context) (*Result, error) {
	plan := s.schedule()
	m := s.manifest(len(plan))
	s.units = append(s.units, s.prior...)
	s.spend = s.done.spent()
	// The active time of a killed run is the later of the manifest's last
	// checkpoint and the journal's last line.
	s.priorActive = max(s.priorActive, s.done.spend.WallTimeMs)
	s.spend.WallTimeMs = 0 // derived from priorActive and the segment
	s.finished = len(s.done.units)
	if err := s.writeManifest(m); err != nil {
		return nil, err
	}
	defer s.journal.close()

	trees, err := s.materialize(ctx)
	defer os.RemoveAll(filepath.Join(s.dir, TreesDir))
	if err != nil {
		return s.end(ctx, m, StatusFailed, err)
	}
	for i := range m.Candidates {
		m.Candidates[i].Invalid = s.invalid[m.Candidates[i].ID]
	}

	if s.camp.Sequential != nil {
		return s.executeRounds(ctx, m, plan, trees)
	}
	var todo []plannedUnit
	for _, u := range plan {
		if _, done := s.done.units[u.id]; !done && s.invalid[u.cand.ID] == "" {
			todo = append(todo, u)
		}
	}
	if err := s.runUnits(ctx, todo, trees, len(plan)); err != nil {
		return s.end(ctx, m, StatusFailed, err)
	}
	switch {
	case ctx.Err() != nil:
		return s.end(ctx, m, StatusAborted, context.Cause(ctx))
	case s.stopErr != nil:
		return s.end(ctx, m, StatusFailed, s.stopErr)
	}
	return s.end(ctx, m, "", nil)
}

// runUnits runs todo, Concurrency at a time, until they are done, ctx is
// cancelled or a budget is used up (s.stopErr). Its error is a ledger that
// cannot be written.
func (s *state) runUnits(ctx context.Context, todo []plannedUnit, trees map[string]*tree, total int) error {
	// A unit starts only when a slot is free, so that the budget is
	// checked against everything the finished units spent.
	slots := make(chan struct{}, max(1, s.opts.Concurrency))
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var unitErr error
feed:
	for _, u := range todo {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break feed
		}
		errMu.Lock()
		failed := unitErr != nil
		errMu.Unlock()
		if ctx.Err() != nil || failed {
			break
		}
		err := s.reserve(u.judgeCalls)
		if _, ok := err.(*budgetStop); ok && u.judgeCalls > 0 {
			// The units running may settle for fewer judge calls than
			// they reserved: once they have, try again.
			wg.Wait()
			errMu.Lock()
			failed := unitErr != nil
			errMu.Unlock()
			if ctx.Err() != nil || failed {
				break
			}
			err = s.reserve(u.judgeCalls)
		}
		if err != nil {
			s.mu.Lock()
			s.stopErr = err
			s.mu.Unlock()
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := s.runUnit(ctx, u, trees[u.cand.ID], total); err != nil {
				errMu.Lock()
				if unitErr == nil {
					unitErr = err
				}
				errMu.Unlock()
			}
		})
	}
	wg.Wait()
	return unitErr
}

// reserve counts the next unit's run and the judge calls it takes at
// least, or refuses it when a budget is used up or its judge calls would
// pass maxJudgeCalls (a *budgetStop, worded when the experiment ends, from
// what the ledger then records).
func (s *state) reserve(judgeCalls int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.spend
	b := s.camp.Budget
	switch {
	case sp.Runs >= b.MaxRuns:
		return &budgetStop{budget: "maxRuns"}
	case sp.Tokens >= b.MaxTokens:
		return &budgetStop{budget: "maxTokens"}
	case sp.CostUSD >= b.MaxCostUSD:
		return &budgetStop{budget: "maxCostUsd"}
	case sp.JudgeCalls+s.reserved+max(1, judgeCalls) > b.MaxJudgeCalls:
		return &budgetStop{budget: "maxJudgeCalls", next: judgeCalls}
	case s.activeMs() >= time.Duration(b.MaxWallTime).Milliseconds():
		return &budgetStop{budget: "maxWallTime"}
	}
	s.spend.Runs++
	s.reserved += judgeCalls
	return nil
}

// budgetStop is a budget that was used up before every unit ran.
type budgetStop struct {
	budget string
	// next is the most judge calls the unit refused could make.
	next int
}

func (b *budgetStop) Error() string { return "the " + b.budget + " budget is used up" }

// message says which budget stopped the experiment, what was spent in
// all (the units already running when it ran out finished and count, so
// the spend may pass the budget) and what was left undone: the words the
// ledger's totals support.
func (b *budgetStop) message(sp Spend, budget Budget, planned int) string {
	var used string
	switch b.budget {
	case "maxRuns":
		used = fmt.Sprintf("the maxRuns budget of %d runs is used up: %d runs started", budget.MaxRuns, sp.Runs)
	case "maxTokens":
		used = fmt.Sprintf("the maxTokens budget of %d is used up: %d tokens spent", budget.MaxTokens, sp.Tokens)
	case "maxCostUsd":
		used = fmt.Sprintf("the maxCostUsd budget of $%.4f is used up: $%.4f spent", budget.MaxCostUSD, sp.CostUSD)
	case "maxJudgeCalls":
		used = fmt.Sprintf("the maxJudgeCalls budget of %d is used up: %d judge calls made", budget.MaxJudgeCalls, sp.JudgeCalls)
		if sp.InterruptedJudgeCalls > 0 {
			used += fmt.Sprintf(" (%d of them by interrupted units, counted at the most they could make)", sp.InterruptedJudgeCalls)
		}
		if b.next > 1 && sp.JudgeCalls+b.next > budget.MaxJudgeCalls {
			used += fmt.Sprintf(", and the next unit could make up to %d", b.next)
		}
	default:
		used = fmt.Sprintf("the maxWallTime budget of %s is used up: %s active", time.Duration(budget.MaxWallTime), time.Duration(sp.WallTimeMs)*time.Millisecond)
	}
	return fmt.Sprintf("experiment stopped: %s, %d of the %d planned units not run", used, planned-sp.Units, planned)
}

// activeMs is the active time over every segment, up to the end when the
// experiment has ended (so the ledger and the end's message agree).
func (s *state) activeMs() int64 {
	if !s.ended.IsZero() {
		return s.priorActive + s.ended.Sub(s.segment).Milliseconds()
	}
	return s.priorActive + time.Since(s.segment).Milliseconds()
}

// materialize writes every candidate's tree and runs the validation
// commands in it; a candidate whose validation fails is marked invalid.
func (s *state) materialize(ctx context.Context) (map[string]*tree, error) {
	trees := map[string]*tree{}
	root := filepath.Join(s.dir, TreesDir)
	// A process killed mid-run leaves its trees: start afresh.
	if err := os.RemoveAll(root); err != nil {
		return trees, fmt.Errorf("experiment: %w", err)
	}
	for _, cand := range s.cands {
		t := &tree{dir: filepath.Join(root, cand.ID), orch: map[string]*orchestrator.Orchestrator{}}
		var err error
		trees[cand.ID] = t
		if t.hash, err = s.sub.materialize(cand, t.dir); err != nil {
			return trees, err
		}
		for _, name := range s.camp.profileNames() {
			t.orch[name] = s.orchestrator(name, cand, t.dir)
		}
		if why := s.validate(ctx, cand, t); why != "" {
			s.invalid[cand.ID] = why
		}
	}
	return trees, nil
}

// validate runs the subject's validation commands in the candidate's tree.
func (s *state) validate(ctx context.Context, cand *Candidate, t *tree) string {
	for _, v := range s.camp.Subject.Validate {
		home, err := os.MkdirTemp("", "lux-validate-home-")
		if err != nil {
			return err.Error()
		}
		timeout := time.Duration(v.Timeout)
		if timeout <= 0 {
			timeout = 2 * time.Minute
		}
		env := []string{"PATH=" + proc.DefaultPath, "HOME=" + home, "LANG=C.UTF-8", "CI=1"}
		if tmp := os.Getenv("TMPDIR"); tmp != "" {
			env = append(env, "TMPDIR="+tmp)
		}
		res, err := proc.Run(ctx, proc.Spec{Path: v.Command, Args: v.Args, Dir: t.dir, Env: env, Timeout: timeout, MaxOutput: 64 << 10})
		_ = os.RemoveAll(home)
		label := strings.Join(append([]string{v.Command}, v.Args...), " ")
		switch {
		case err != nil:
			return fmt.Sprintf("candidate validation '%s' could not run: %v", label, err)
		case res.TimedOut:
			return fmt.Sprintf("candidate validation '%s' timed out after %s", label, timeout)
		case !res.Exited || res.Code != 0:
			return fmt.Sprintf("candidate validation '%s' exited %s: %s", label, res.Status, clip(string(res.Stderr), 500))
		}
	}
	if h, err := s.sub.hash(t.dir); err != nil || h != t.hash {
		return "candidate validation changed the candidate's tree"
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// runUnit runs one unit and records it. Its error is a ledger that
// cannot be written; the unit's own failures are recorded in the unit.
func (s *state) runUnit(ctx context.Context, u plannedUnit, t *tree, total int) error {
	if s.grader != nil {
		return s.runGraderUnit(ctx, u, total)
	}
	s.progress(Progress{Candidate: u.cand.ID, Profile: u.key.Profile, Split: u.key.Split, CaseID: u.key.CaseID, Repetition: u.key.Repetition, Total: total})
	if err := s.journal.append(journalEntry{Kind: "attempt", Unit: u.id, WallTimeMs: s.activeMs()}); err != nil {
		return err
	}

	var tamper string
	t.mu.Lock()
	before, err := s.sub.hash(t.dir)
	t.mu.Unlock()
	if err != nil || before != t.hash {
		tamper = fmt.Sprintf("the subject tree of candidate %s was changed before the run started (by another run); the unit fails", u.cand.ID)
	}
	res, runErr := t.orch[u.key.Profile].Run(orchestrator.WithRunKey(ctx, s.runKey(u.key)), u.c)
	if ctx.Err() != nil {
		return nil // not finished: it runs again on resume
	}
	if res == nil {
		return fmt.Errorf("experiment: unit %s (%s): %w", u.key.CaseID, u.cand.ID, runErr)
	}
	t.mu.Lock()
	after, err := s.sub.hash(t.dir)
	if tamper == "" && (err != nil || after != t.hash) {
		changed := s.sub.changedFiles(t.dir, u.cand)
		what := "files outside the mutable set"
		if len(changed) > 0 {
			what = strings.Join(changed, ", ")
		}
		tamper = fmt.Sprintf("the agent changed the subject tree of candidate %s during the run (%s); the unit fails", u.cand.ID, what)
	}
	if after != t.hash {
		// Restore the tree for the units that follow.
		_ = os.RemoveAll(t.dir)
		if h, err := s.sub.materialize(u.cand, t.dir); err == nil {
			t.hash = h
		}
	}
	t.mu.Unlock()

	unit := s.unitOf(u, res, t.dir)
	if runErr != nil && unit.Error == "" {
		unit.Error = runErr.Error()
	}
	if tamper != "" {
		unit.Error = tamper
		f := false
		unit.Sample.Passed = &f
		unit.Sample.ExitReason = lux.ExitError
	}
	if err := s.record(unit); err != nil {
		return err
	}
	s.mu.Lock()
	s.finished++
	done := s.finished
	s.mu.Unlock()
	p := Progress{Done: done, Total: total, Candidate: u.cand.ID, Profile: u.key.Profile, Split: u.key.Split,
		CaseID: u.key.CaseID, Repetition: u.key.Repetition, Finished: true, Passed: unit.Sample.Passed, Elapsed: time.Since(s.segment)}
	if unit.Error != "" {
		p.Err = errors.New(unit.Error)
	}
	if ran := done - len(s.done.units); ran > 0 {
		p.Estimate = time.Duration(float64(time.Since(s.segment)) / float64(ran) * float64(total-done))
	}
	s.progress(p)
	return nil
}

// unitOf builds the unit record of a finished run against the candidate's
// tree at root.
func (s *state) unitOf(u plannedUnit, res *record.Run, root string) *Unit {
	meta := res.Metadata
	ident := *meta
	// The fixtures of a case that takes them from the subject differ by
	// candidate on purpose: they are what the experiment varies.
	if strings.Contains(u.c.Fixtures, orchestrator.SubjectRootToken) {
		ident.Provenance.FixturesHash = ""
	}
	// So do the files of the subject a driver records as part of its
	// runtime ("args": ["{{lux.subjectRoot}}/INSTRUCTIONS.md"] makes the
	// file a script): they are the subject, which the unit's candidate hash
	// identifies, not the runtime the arms share.
	ident.Provenance.Runtime = withoutSubject(ident.Provenance.Runtime, root)
	rel, err := filepath.Rel(s.runsRoot, res.Dir)
	if err != nil {
		rel = res.Dir
	}
	rel = filepath.ToSlash(rel)
	sample := record.Sample{
		CaseID: u.key.CaseID, Repetition: u.key.Repetition, Cluster: u.c.Cluster, RunDir: rel,
		ExitReason: meta.ExitReason, IdentityHash: record.IdentityHash(&ident), Metrics: record.RunMetrics(meta),
	}
	if res.Grading != nil {
		sample.Passed, sample.Score = res.Grading.Passed, res.Grading.Score
	}
	unit := &Unit{
		SchemaVersion: 1, ID: u.id, Candidate: u.cand.ID, CandidateHash: u.cand.Hash, Profile: u.key.Profile,
		Split: u.key.Split, CaseID: u.key.CaseID, Cluster: u.c.Cluster, Repetition: u.key.Repetition, RunDir: rel,
		Sample: sample, FinishedAt: time.Now().UTC(),
	}
	if a := meta.Usage.Agent; a != nil {
		unit.Tokens += a.Total()
	}
	unit.Tokens += meta.Usage.Harness().Total()
	if c := meta.Usage.AgentCostUSD; c != nil {
		unit.CostUSD = *c
	}
	if res.Grading != nil {
		for _, a := range res.Grading.Assertions {
			if a.Usage != nil {
				unit.JudgeCalls++
			}
		}
	}
	return unit
}

// withoutSubject returns rt without the scripts and commands that are files
// of the candidate's tree at root.
func withoutSubject(rt record.RuntimeInfo, root string) record.RuntimeInfo {
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real) // a command's Path has its symlinks resolved
	}
	inTree := func(c record.CommandInfo) bool {
		for _, p := range []string{c.Path, c.Name} {
			for _, r := range roots {
				if rel, err := filepath.Rel(r, p); err == nil && filepath.IsAbs(p) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					return true
				}
			}
		}
		return false
	}
	rt.Scripts = slices.DeleteFunc(slices.Clone(rt.Scripts), inTree)
	rt.Commands = slices.DeleteFunc(slices.Clone(rt.Commands), inTree)
	return rt
}

// record writes the unit file, then its journal line, then the manifest's
// checkpoint. A crash between the file and the line is repaired on resume
// (the file is adopted).
func (s *state) record(u *Unit) error {
	data, err := encodeUnit(u)
	if err != nil {
		return fmt.Errorf("experiment: unit %s: %w", u.ID, err)
	}
	w := record.Writer{Sync: s.opts.Fsync}
	if err := w.WriteFile(unitFile(s.dir, u.ID), data); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := s.journal.append(journalEntry{Kind: "unit", Unit: u.ID, Hash: hashBytes(data), Tokens: u.Tokens, CostUSD: u.CostUSD, JudgeCalls: u.JudgeCalls, WallTimeMs: s.activeMs()}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.units = append(s.units, u)
	s.spend.Units++
	s.spend.Tokens += u.Tokens
	s.spend.CostUSD += u.CostUSD
	s.spend.JudgeCalls += u.JudgeCalls
	return nil
}

func (s *state) progress(p Progress) {
	if s.opts.Progress == nil {
		return
	}
	s.progMu.Lock()
	defer s.progMu.Unlock()
	s.opts.Progress(p)
}

// manifest is the ledger's manifest as the experiment starts (or resumes).
func (s *state) manifest(units int) *Manifest {
	snap, _ := digest.CanonicalJSON(s.camp)
	m := &Manifest{
		SchemaVersion: 1, ExperimentID: filepath.Base(s.dir), CampaignID: s.camp.ID, CampaignPath: s.camp.Path,
		CampaignHash: s.hash, Campaign: snap, SubjectRoot: s.sub.root, BaseHash: s.baseHash, SubjectFiles: s.baseFiles, CorpusHash: s.corpHash,
		Status: StatusRunning, StartedAt: s.started, Profiles: s.profiles, Splits: map[string][]CaseRef{},
		Budget: s.camp.Budget, Units: units, Candidates: []CandidateRef{},
	}
	for _, c := range s.cands {
		m.Candidates = append(m.Candidates, CandidateRef{ID: c.ID, Hash: c.Hash, Bytes: c.Bytes})
	}
	for _, split := range s.corp.splits {
		refs := []CaseRef{}
		for _, lc := range s.corp.cases[split] {
			refs = append(refs, CaseRef{ID: lc.CanonicalID(), Path: lc.Path, Cluster: lc.Cluster})
		}
		m.Splits[split] = refs
	}
	return m
}

func (s *state) writeManifest(m *Manifest) error {
	s.mu.Lock()
	m.Spent = s.spend
	s.mu.Unlock()
	m.Spent.WallTimeMs = s.activeMs()
	if err := (record.Writer{Sync: s.opts.Fsync}).WriteJSON(filepath.Join(s.dir, ManifestFile), m); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// end decides (unless the experiment was aborted or failed on an error)
// and writes the final manifest.
func (s *state) end(ctx context.Context, m *Manifest, status Status, cause error) (*Result, error) {
	res := &Result{Dir: s.dir, Manifest: m}
	s.ended = time.Now()
	if stop, ok := cause.(*budgetStop); ok {
		s.mu.Lock()
		sp := s.spend
		s.mu.Unlock()
		sp.WallTimeMs = s.activeMs()
		cause = errors.New(stop.message(sp, s.camp.Budget, m.Units))
	}
	if cause != nil {
		m.Error = cause.Error()
	}
	if status != StatusAborted {
		ev, err := evaluate(context.WithoutCancel(ctx), &s.camp, m.Candidates, newEvidence(s.runsRoot, s.units), s.corp.splits, m.Splits)
		switch {
		case err != nil:
			// The units cannot be evaluated (no case pairs): the experiment
			// failed, and the ledger says why.
			cause = errors.Join(cause, err)
			m.Error = cause.Error()
			status = StatusFailed
		case status == "":
			res.Evaluation = ev
			m.Decision = ev.Decision
			status = StatusFailed
			if ev.Decision.Champion != "" {
				status = StatusPassed
			}
		default:
			res.Evaluation = ev
		}
	}
	m.Status = status
	now := time.Now().UTC()
	m.EndedAt = &now
	if err := s.writeManifest(m); err != nil {
		return nil, err
	}
	if cause != nil {
		return res, fmt.Errorf("experiment: %s %s: %w", status, s.dir, cause)
	}
	return res, nil
}

// runKey is a unit's orchestrator.PlannedRun key: the experiment and the
// unit's key, so that a remote executor never runs one unit twice.
func (s *state) runKey(k unitKey) string {
	return fmt.Sprintf("%s/%s@%s/%s/%s/%s/%d", filepath.Base(s.dir), k.Candidate, k.CandidateHash, k.Profile, k.Split, k.CaseID, k.Repetition)
}
