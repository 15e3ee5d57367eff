package experiment

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
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// ErrUndecidable is the error of Run for a campaign with a constraint its
// split has too few units to decide (see CampaignPlan.Undecidable).
var ErrUndecidable = errors.New("a constraint cannot be decided with the units of its split")

// ErrUnsupportedDriver reports a driver without controlled-experiment
// support (lux.DriverPlugin.Experiment) named by an experiment's profile.
var ErrUnsupportedDriver = errors.New("lux: driver does not support controlled experiments")

// Options configures Run and Resume. The zero value runs one unit at a
// time under .lux-runs.
type Options struct {
	// RunsRoot is where the runs and the ledger go; default ".lux-runs".
	RunsRoot string
	// Concurrency is how many units run at once; default 1.
	Concurrency int
	// Fsync makes every ledger and record file durable across a power
	// loss (see orchestrator.Options.Fsync).
	Fsync bool
	// Progress, when set, is told as units start and finish; calls are
	// serialized.
	Progress func(Progress)
	// Force runs a campaign with a constraint its split has too few units
	// to decide (see CampaignPlan.Undecidable), which Run otherwise
	// refuses; such a constraint can only end inconclusive.
	Force bool
	// Sandbox confines each unit's agent (see orchestrator.Options.Sandbox):
	// the candidate's subject tree is readable, not writable.
	Sandbox sandbox.Config
	// Executor, when set, executes the units (see
	// orchestrator.Options.Executor); each unit's key is its run key.
	Executor orchestrator.Executor
}

// Progress reports one unit.
type Progress struct {
	Done, Total int // units finished (this run and earlier ones) and planned
	Candidate   string
	Profile     string
	Split       string
	CaseID      string
	Repetition  int
	Finished    bool  // false when the unit starts
	Passed      *bool // when finished
	Err         error // the unit failed
	Elapsed     time.Duration
	Estimate    time.Duration // of the time left, from this run's pace
	// Round, in a sequential campaign, reports a finished round instead
	// of a unit (the unit fields are then empty).
	Round *RoundProgress
}

// Result is an experiment's outcome.
type Result struct {
	Dir      string // the ledger
	Manifest *Manifest
	*Evaluation
}

// Run runs the campaign to a decision: it validates the campaign and every
// case against the registry, captures the baseline and the variants,
// refuses a profile whose driver lacks experiment support, materializes
// and validates each candidate, then runs every unit — candidate ×
// profile × split × case × repetition, in rounds of repetitions — as an
// ordinary run through an Orchestrator, and decides. Everything is kept in
// a ledger under <RunsRoot>/.experiments (see Manifest). A budget that runs
// out ends the experiment failed, keeping what was done; a cancelled ctx
// ends it aborted, resumable with Resume.
func Run(ctx context.Context, reg *lux.Registry, c *Campaign, opts Options) (*Result, error) {
	s, err := start(ctx, reg, c, opts)
	if err != nil {
		return nil, err
	}
	if u := undecidable(&s.camp, s.corp.units()); len(u) > 0 && !opts.Force {
		var lines []string
		for _, x := range u {
			lines = append(lines, x.Text)
		}
		return nil, fmt.Errorf("experiment: campaign %s: %w (Options.Force, lux experiment -force, runs it anyway; it can then only end inconclusive):\n  %s", c.ID, ErrUndecidable, strings.Join(lines, "\n  "))
	}
	dir, err := reserveLedger(s.runsRoot, c.ID, time.Now())
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if s.lock, err = lock(dir); err != nil {
		return nil, err
	}
	defer s.lock.unlock()
	for _, cand := range s.cands {
		if err := record.WriteJSON(filepath.Join(dir, CandidatesDir, cand.ID+".json"), cand); err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
	}
	if s.journal, err = openJournal(dir, -1, opts.Fsync); err != nil {
		return nil, err
	}
	s.done = &journal{units: map[string]journalEntry{}, torn: -1}
	return s.execute(ctx)
}

// Resume continues the experiment of the ledger dir: it refuses, naming
// what changed, when the campaign (c, or the file the ledger names when c
// is nil), the subject, a profile's driver identity or environment, or the
// cases differ from what the ledger recorded, and when the ledger has
// passed; otherwise it runs only the units not yet finished and decides.
// A campaign whose profiles name project profiles must be passed as c,
// loaded with LoadWithProject (lux experiment -resume does).
func Resume(ctx context.Context, reg *lux.Registry, dir string, c *Campaign, opts Options) (*Result, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Status == StatusPassed {
		return nil, fmt.Errorf("experiment: %s has passed; a passed ledger is immutable (start a new experiment instead)", dir)
	}
	if c == nil {
		if m.CampaignPath == "" {
			return nil, fmt.Errorf("experiment: %s was run from a campaign built in Go; pass the campaign to Resume", dir)
		}
		if c, err = Load(m.CampaignPath); err != nil {
			return nil, err
		}
	}
	if opts.RunsRoot == "" {
		opts.RunsRoot = filepath.Dir(filepath.Dir(dir))
	}
	s, err := start(ctx, reg, c, opts)
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if err := s.sameAs(m); err != nil {
		return nil, err
	}
	if s.lock, err = lock(dir); err != nil {
		return nil, err
	}
	defer s.lock.unlock()
	s.started = m.StartedAt
	s.priorActive = m.Spent.WallTimeMs
	if s.done, err = readJournal(dir); err != nil {
		return nil, err
	}
	if s.journal, err = openJournal(dir, s.done.torn, opts.Fsync); err != nil {
		return nil, err
	}
	if err := adoptUnits(dir, s.done, s.journal); err != nil {
		return nil, err
	}
	if s.prior, err = readUnits(dir, s.done); err != nil {
		return nil, err
	}
	return s.execute(ctx)
}

// state is an experiment being run.
type state struct {
	reg       *lux.Registry // the registry with the drivers' experiment Prepare applied
	camp      Campaign      // with defaults
	opts      Options
	runsRoot  string
	dir       string
	sub       *subject
	corp      *corpus
	cands     []*Candidate
	baseHash  string
	baseFiles map[string]string
	profiles  map[string]ProfileIdentity
	hash      string
	corpHash  string
	lock      *ledgerLock
	journal   *journalWriter
	done      *journal
	prior     []*Unit

	started     time.Time
	priorActive int64
	segment     time.Time
	ended       time.Time // when end began; zero until then

	mu       sync.Mutex
	units    []*Unit
	spend    Spend
	invalid  map[string]string
	stopErr  error // a budget ran out
	reserved int   // judge calls of the units running, not yet recorded
	// grader grades a grader experiment's units (nil in an agent one).
	grader   *orchestrator.Orchestrator
	progMu   sync.Mutex
	finished int
}

// start validates everything and prepares the candidates and profiles,
// without starting any agent.
func start(ctx context.Context, reg *lux.Registry, c *Campaign, opts Options) (*state, error) {
	if c == nil {
		return nil, errors.New("experiment: nil campaign")
	}
	corp, err := c.prepare()
	if err != nil {
		return nil, err
	}
	s := &state{camp: c.withDefaults(), opts: opts, corp: corp, invalid: map[string]string{}, segment: time.Now(), started: time.Now().UTC()}
	s.camp.Dir, s.camp.Path = c.Dir, c.Path
	if s.runsRoot, err = filepath.Abs(orDefault(opts.RunsRoot, record.DefaultRoot)); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if s.sub, err = s.camp.subject(); err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(s.sub.root, s.runsRoot); err == nil && !strings.HasPrefix(rel, "..") && !s.sub.excluded(filepath.ToSlash(rel)) {
		return nil, fmt.Errorf("experiment: the runs root %s is inside the subject %s and not excluded; runs would change the subject (exclude it or run elsewhere)", s.runsRoot, s.sub.root)
	}
	base, err := s.sub.capture()
	if err != nil {
		return nil, err
	}
	s.cands = []*Candidate{base}
	for _, v := range s.camp.Variants {
		vc, err := s.sub.variant(base, v)
		if err != nil {
			return nil, err
		}
		s.cands = append(s.cands, vc)
	}
	if s.baseHash, err = s.sub.hash(s.sub.root); err != nil {
		return nil, fmt.Errorf("experiment: subject %s: %w", s.sub.root, err)
	}
	if s.baseFiles, err = s.sub.files(s.sub.root); err != nil {
		return nil, fmt.Errorf("experiment: subject %s: %w", s.sub.root, err)
	}
	if s.hash, err = digest.Value(s.camp); err != nil {
		return nil, fmt.Errorf("experiment: campaign hash: %w", err)
	}
	if s.camp.Grader != nil {
		return s.startGrader(ctx, reg)
	}
	if s.corpHash, err = corpusHash(corp); err != nil {
		return nil, err
	}
	if s.reg, err = experimentRegistry(reg, &s.camp); err != nil {
		return nil, err
	}
	if s.profiles, err = profileIdentities(ctx, reg, &s.camp, s.sub.root); err != nil {
		return nil, err
	}
	// Every case, for every profile, before anything runs.
	var probs []string
	for _, name := range s.camp.profileNames() {
		o := s.orchestrator(name, base, s.sub.root)
		for _, split := range corp.splits {
			for _, lc := range corp.cases[split] {
				if err := o.Validate(lc); err != nil {
					probs = append(probs, fmt.Sprintf("profile %s: %v", name, err))
				}
			}
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("experiment: campaign %s: the cases cannot run:\n  %s", c.ID, strings.Join(probs, "\n  "))
	}
	return s, nil
}

// startGrader finishes start for a grader experiment: the labelled runs
// verified, the judge's identity, and every candidate's rubrics applied
// to every labelled case and checked, before any judge is asked.
func (s *state) startGrader(ctx context.Context, reg *lux.Registry) (*state, error) {
	var err error
	if s.corpHash, err = labelsHash(s.corp); err != nil {
		return nil, err
	}
	if err := s.verifyLabels(ctx); err != nil {
		return nil, err
	}
	s.reg = reg
	s.grader = s.graderOrchestrator()
	var probs []string
	for _, cand := range s.cands {
		for _, id := range sortedKeys(s.corp.labels) {
			c, err := s.camp.rubricCase(s.corp.labels[id], cand)
			if err == nil {
				err = s.grader.ValidateAssertions(c)
			}
			if err != nil {
				probs = append(probs, fmt.Sprintf("candidate %s, label %s: %v", cand.ID, id, err))
				break
			}
		}
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("experiment: campaign %s: the rubrics cannot grade:\n  %s", s.camp.ID, strings.Join(probs, "\n  "))
	}
	if s.profiles, err = s.graderIdentity(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// corpusHash identifies the selected cases (authored) per split.
func corpusHash(corp *corpus) (string, error) {
	type entry struct {
		Split, Path string
		Case        *lux.Case
		Behaviour   string
	}
	var all []entry
	for _, split := range corp.splits {
		for _, lc := range corp.cases[split] {
			h, err := behaviourHash(lc)
			if err != nil {
				return "", err
			}
			all = append(all, entry{split, lc.Path, lc, h})
		}
	}
	return digest.Value(all)
}

// experimentRegistry returns a registry holding reg's plugins, with every
// driver a profile uses parsing through its experiment Prepare. A profile
// driver without experiment support is refused.
func experimentRegistry(reg *lux.Registry, c *Campaign) (*lux.Registry, error) {
	out := lux.NewRegistry()
	used := map[string]bool{}
	for _, p := range c.Profiles {
		used[p.Driver.Name] = true
	}
	for _, name := range reg.Drivers() {
		p, _ := reg.Driver(name)
		if used[name] {
			if p.Experiment == nil {
				return nil, fmt.Errorf("experiment: %w: driver %q supports ordinary eval runs but does not declare controlled experiment support", ErrUnsupportedDriver, name)
			}
			wrapped := *p
			parse, prep := p.Parse, p.Experiment.Prepare
			wrapped.Parse = func(raw json.RawMessage) (lux.DriverConfig, error) {
				cfg, err := parse(raw)
				if err != nil {
					return nil, err
				}
				return prep(cfg)
			}
			p = &wrapped
		}
		if err := out.RegisterDriver(p); err != nil {
			return nil, err
		}
	}
	for _, name := range reg.Answerers() {
		p, _ := reg.Answerer(name)
		if err := out.RegisterAnswerer(p); err != nil {
			return nil, err
		}
	}
	for _, name := range reg.Assertions() {
		p, _ := reg.Assertion(name)
		if err := out.RegisterAssertion(p); err != nil {
			return nil, err
		}
	}
	for name := range used {
		if _, err := reg.Driver(name); err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
	}
	return out, nil
}

// profileIdentities computes each profile's identity: its driver's
// experiment version, prepared config hash and behaviour identity, its
// answerer config and its environment.
func profileIdentities(ctx context.Context, reg *lux.Registry, c *Campaign, subjectRoot string) (map[string]ProfileIdentity, error) {
	out := map[string]ProfileIdentity{}
	for _, name := range c.profileNames() {
		pr := c.Profiles[name]
		plugin, err := reg.Driver(pr.Driver.Name)
		if err != nil {
			return nil, fmt.Errorf("experiment: profile %s: %w", name, err)
		}
		bound, err := orchestrator.BindSubjectRoot(pr.Driver.Config, subjectRoot)
		if err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver config: %w", name, err)
		}
		raw, err := lux.ConfigJSON(bound)
		if err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver config: %w", name, err)
		}
		cfg, err := plugin.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver config: %w", name, err)
		}
		if cfg, err = plugin.Experiment.Prepare(cfg); err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver %q experiment configuration: %w", name, pr.Driver.Name, err)
		}
		ident, err := plugin.Experiment.Identity(ctx, cfg, c.Dir)
		if err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver %q identity: %w", name, pr.Driver.Name, err)
		}
		pi := ProfileIdentity{Driver: pr.Driver.Name, DriverVersion: plugin.Experiment.Version, Environment: pr.Environment}
		if pi.DriverIdentity, err = json.Marshal(ident); err != nil {
			return nil, fmt.Errorf("experiment: profile %s: driver identity does not encode: %w", name, err)
		}
		if pi.DriverConfig, err = digest.Value(cfg); err != nil {
			return nil, fmt.Errorf("experiment: profile %s: %w", name, err)
		}
		if pr.Answerer != nil {
			pi.Answerer = pr.Answerer.Name
			if pi.AnswererConfig, err = digest.Value(pr.Answerer.Config); err != nil {
				return nil, fmt.Errorf("experiment: profile %s: answerer config: %w", name, err)
			}
		}
		out[name] = pi
	}
	return out, nil
}

// sameAs refuses to resume m under different conditions.
func (s *state) sameAs(m *Manifest) error {
	var diffs []string
	if m.CampaignID != s.camp.ID {
		diffs = append(diffs, fmt.Sprintf("the campaign id is %q, the ledger's %q", s.camp.ID, m.CampaignID))
	} else if m.CampaignHash != s.hash {
		diffs = append(diffs, "the campaign changed since the experiment started")
	}
	if m.BaseHash != s.baseHash {
		what := ""
		if m.SubjectFiles != nil {
			what = " (" + filesDiff(m.SubjectFiles, s.baseFiles) + ")"
		}
		diffs = append(diffs, fmt.Sprintf("the subject %s changed since the experiment started%s", s.sub.root, what))
	}
	if m.CorpusHash != s.corpHash {
		diffs = append(diffs, "the selected cases (or their fixtures) changed")
	}
	for _, name := range sortedKeys(m.Profiles) {
		was, now := m.Profiles[name], s.profiles[name]
		switch {
		case now.Driver == "":
			diffs = append(diffs, fmt.Sprintf("profile %s is gone", name))
		case was.Driver != now.Driver || was.DriverVersion != now.DriverVersion:
			diffs = append(diffs, fmt.Sprintf("profile %s: the driver is %s version %s, the ledger's %s version %s", name, now.Driver, now.DriverVersion, was.Driver, was.DriverVersion))
		case !jsonEqual(was.DriverIdentity, now.DriverIdentity):
			diffs = append(diffs, fmt.Sprintf("profile %s: the driver's identity changed (CLI version, executable or settings): was %s, now %s", name, was.DriverIdentity, now.DriverIdentity))
		case was.DriverConfig != now.DriverConfig:
			diffs = append(diffs, fmt.Sprintf("profile %s: the driver's prepared config changed", name))
		case !jsonEqual(was.Environment, now.Environment):
			diffs = append(diffs, fmt.Sprintf("profile %s: the environment changed: was %s, now %s", name, orNull(was.Environment), orNull(now.Environment)))
		case was.Answerer != now.Answerer || was.AnswererConfig != now.AnswererConfig:
			diffs = append(diffs, fmt.Sprintf("profile %s: the answerer changed", name))
		case !jsonEqual(judgesJSON(was.Judges), judgesJSON(now.Judges)):
			wj, nj := judgesJSON(was.Judges), judgesJSON(now.Judges)
			diffs = append(diffs, fmt.Sprintf("profile %s: a rubric's own judge changed (its CLI's version or content): was %s, now %s", name, wj, nj))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("experiment: cannot resume %s: arms measured under different conditions are never pooled:\n  - %s", s.dir, strings.Join(diffs, "\n  - "))
	}
	return nil
}

// judgesJSON is js as JSON, null when there are none.
func judgesJSON(js []JudgeIdentity) json.RawMessage {
	if len(js) == 0 {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(js)
	return b
}

func jsonEqual(a, b json.RawMessage) bool {
	ca, errA := digest.CanonicalJSON(a)
	cb, errB := digest.CanonicalJSON(b)
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return errA == nil && errB == nil && string(ca) == string(cb)
}

func orNull(r json.RawMessage) string {
	if len(r) == 0 {
		return "null"
	}
	return string(r)
}

// orchestrator returns an Orchestrator running profile's arm for cand
// against the tree at root.
func (s *state) orchestrator(profile string, cand *Candidate, root string) *orchestrator.Orchestrator {
	pr := s.camp.Profiles[profile]
	var env any
	if len(pr.Environment) > 0 {
		env = pr.Environment
	}
	return orchestrator.New(s.reg, orchestrator.Options{
		RunsRoot: s.runsRoot, Driver: pr.Driver, Answerer: pr.Answerer, Environment: env,
		SubjectRoot: root, Fsync: s.opts.Fsync, Sandbox: s.opts.Sandbox, Executor: s.opts.Executor, Queue: pr.Queue,
		Experiment: orchestrator.ExperimentInfo{ID: filepath.Base(s.dir), CandidateID: cand.ID, SubjectHash: cand.Hash},
	})
}
