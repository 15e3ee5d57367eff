package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// GraderSpec makes a campaign a grader experiment: its subject is a set of
// rubric files, and each candidate (the rubrics as they are, or a variant
// of them) regrades the labelled, frozen runs of a label dataset offline —
// nothing is re-run — once per label, split and repetition of the judge.
// A unit is one such grading, scored against its label; the splits select
// labels by tag, the annotation is the unit paired across candidates and
// the labelled run's case its cluster. Gates, decisions, the ledger and
// lux apply are those of every campaign.
type GraderSpec struct {
	// Labels is the label dataset (package labels), relative to the
	// campaign's Dir.
	Labels string `json:"labels"`
	// Rubrics are the rubric assertions of the labelled runs' cases that
	// the candidates replace, each with the subject file that holds it.
	Rubrics []RubricFile `json:"rubrics"`
	// Judge is the harness model that grades (harness.Config: provider,
	// model, command, env, ...), for the fields a rubric's config leaves
	// out, as the project's harness model is for lux run.
	Judge harness.Config `json:"judge,omitzero"`
}

// RubricFile binds a rubric assertion to a mutable file of the subject.
// A file ending in .json holds an object whose "threshold" sets the
// assertion's threshold and whose other fields replace the fields of its
// config (criteria, evidence, model, ...); any other file is the criteria
// text.
type RubricFile struct {
	// Assertion is the id of a rubric assertion of the labelled runs'
	// cases.
	Assertion string `json:"assertion"`
	// File is the rubric's file, relative to the subject root, matched by
	// subject.mutable.
	File string `json:"file"`
}

// GraderProfile is the one profile of a grader experiment: its judge.
const GraderProfile = "judge"

// The metrics of a grader experiment's units, scored against the unit's
// label. The rates are 0 or 1 per unit, so a candidate's value is the
// share over the labels (per-label means over the repetitions first).
const (
	// MetricAgreement: the case verdict equals the labelled one; an
	// abstention counts as a disagreement. Only labels with a case verdict.
	MetricAgreement = "judge.agreementRate"
	// MetricAssertionAgreement: the share of the labelled assertions whose
	// verdict equals the label's (an assertion that could not grade
	// disagrees).
	MetricAssertionAgreement = "judge.assertionAgreementRate"
	// MetricFalsePositive: graded pass, labelled fail (labels of failures
	// the judge gave a verdict on).
	MetricFalsePositive = "judge.falsePositiveRate"
	// MetricFalseNegative: graded fail, labelled pass.
	MetricFalseNegative = "judge.falseNegativeRate"
	// MetricAbstention: the judge gave no case verdict, or a labelled
	// assertion could not grade (the judge could not decide, or failed).
	MetricAbstention = "judge.abstentionRate"
	// MetricScoreError: the mean absolute error of the labelled scores
	// (case and assertions) against the graded ones.
	MetricScoreError = "judge.scoreError"
	// MetricJudgeCalls, MetricJudgeTokens and MetricJudgeCost are what the
	// judge spent on the unit.
	MetricJudgeCalls  = "judge.calls"
	MetricJudgeTokens = "judge.tokens"
	MetricJudgeCost   = "judge.costUsd"
)

// GraderMetrics are the metrics every grader candidate's paired effect is
// reported on, besides every constraint metric.
var GraderMetrics = []string{MetricAgreement, MetricAssertionAgreement, MetricFalsePositive, MetricFalseNegative,
	MetricAbstention, MetricScoreError, MetricJudgeCalls, MetricJudgeTokens, MetricJudgeCost}

// labelled is a label of a grader corpus with its run.
type labelled struct {
	label  labels.Label
	runDir string
	run    *lux.Case // the case the run recorded
}

// checkGrader checks the grader block and the rules it changes: no
// profiles (the judge is the one arm), splits by tag only, no sequential
// rule and no optimizer.
func (c *Campaign) checkGrader(p *lux.Problems) {
	g := c.Grader
	if strings.TrimSpace(g.Labels) == "" {
		p.AddFix("grader.labels", "required", "name the label dataset lux annotate wrote, relative to the campaign file")
	}
	if len(g.Rubrics) == 0 {
		p.AddFix("grader.rubrics", "required", `bind a rubric assertion to its file, e.g. [{"assertion": "readme-clear", "file": "rubrics/readme.md"}]`)
	}
	seen := map[string]bool{}
	for i, r := range g.Rubrics {
		at := fmt.Sprintf("grader.rubrics[%d]", i)
		if strings.TrimSpace(r.Assertion) == "" {
			p.AddFix(at+".assertion", "required", "the id of a rubric assertion of the labelled runs' cases")
		} else if seen[r.Assertion] {
			p.Add(at+".assertion", fmt.Sprintf("duplicate assertion %q", r.Assertion))
		}
		seen[r.Assertion] = true
		if r.File == "" || path.IsAbs(r.File) || path.Clean(r.File) != r.File || strings.HasPrefix(r.File, "../") {
			p.AddFix(at+".file", fmt.Sprintf("%q is not a clean relative path", r.File), "give the rubric's file relative to subject.root")
		}
	}
	if len(c.Profiles) > 0 {
		p.AddFix("profiles", "a grader experiment has no profiles", "its one arm is the judge (grader.judge); drop the profiles")
	}
	if c.Sequential != nil {
		p.AddFix("sequential", "a grader experiment runs every unit", "drop the sequential rule")
	}
	if c.Optimizer != nil {
		p.AddFix("optimizer", "a grader experiment has fixed variants", "drop the optimizer")
	}
	for _, s := range c.Splits.selectors() {
		at := "splits." + s.name
		if len(s.sel.Patterns) > 0 {
			p.AddFix(at+".patterns", "a grader experiment selects labels, not case files", "select the labels by tag: {\"tags\": [\"test\"]}")
		}
		if len(s.sel.Tags) == 0 {
			p.AddFix(at+".tags", "required", "select the labels of the split by tag, e.g. {\"tags\": [\""+s.name+"\"]}")
		}
	}
	g.Judge.Validate(p, "grader.judge", true)
}

// selectLabels reads the dataset and selects the labels of every split,
// checking each against its run: the run's run.json names the label's run
// and case, its evidence is the one labelled, and its case has every
// rubric assertion the campaign replaces.
func (c *Campaign) selectLabels(p *lux.Problems) *corpus {
	corp := &corpus{cases: map[string][]*lux.Case{}, labels: map[string]*labelled{}}
	file := c.resolve(c.Grader.Labels)
	ds, err := labels.Load(file)
	if err != nil {
		p.Add("grader.labels", err.Error())
		return corp
	}
	splitOf := map[string]string{}   // label id → split
	clusterOf := map[string]string{} // case id → split
	for _, s := range c.Splits.selectors() {
		at := "splits." + s.name
		corp.splits = append(corp.splits, s.name)
		var cases []*lux.Case
		for _, l := range ds.Labels {
			if !slices.ContainsFunc(l.Tags, func(t string) bool {
				return slices.ContainsFunc(s.sel.Tags, func(w string) bool { return strings.EqualFold(t, w) })
			}) {
				continue
			}
			if other, ok := splitOf[l.ID]; ok {
				p.AddFix(at, fmt.Sprintf("label %q is also in split %s", l.ID, other), "a label belongs to one split only; check its tags")
				continue
			}
			splitOf[l.ID] = s.name
			if other, ok := clusterOf[l.CaseID]; ok && other != s.name {
				p.AddFix(at, fmt.Sprintf("case %q of label %q is also in split %s", l.CaseID, l.ID, other),
					"the labels of one case are one independent unit: tag them all for one split")
				continue
			}
			clusterOf[l.CaseID] = s.name
			lb, problem := c.checkLabel(file, l)
			if problem != "" {
				p.Add(fmt.Sprintf("%s: label %s", at, l.ID), problem)
				continue
			}
			corp.labels[l.ID] = lb
			cases = append(cases, &lux.Case{ID: l.ID, Cluster: l.CaseID, Path: lb.runDir})
		}
		if len(cases) == 0 {
			p.AddFix(at+".tags", "no label of "+file+" carries the tags "+strings.Join(s.sel.Tags, ", "), "tag labels with lux annotate -tag, or check the tags")
		}
		corp.cases[s.name] = cases // the dataset keeps labels sorted by id
	}
	return corp
}

// checkLabel reads the run of l and says what is wrong, if anything.
func (c *Campaign) checkLabel(datasetFile string, l labels.Label) (*labelled, string) {
	dir := labels.RunDir(datasetFile, l)
	run, err := record.ReadRun(dir)
	if err != nil {
		return nil, err.Error()
	}
	m := run.Metadata
	switch {
	case m.RunID != l.RunID:
		return nil, fmt.Sprintf("run %s is run %s, the label's is %s (the label names another run)", dir, m.RunID, l.RunID)
	case m.CaseID != l.CaseID:
		return nil, fmt.Sprintf("run %s is of case %s, the label's is %s", dir, m.CaseID, l.CaseID)
	case l.Evidence != nil && !reflect.DeepEqual(m.Evidence, l.Evidence):
		return nil, fmt.Sprintf("the evidence of run %s is not the evidence that was labelled", dir)
	case run.Case == nil:
		return nil, fmt.Sprintf("run %s has no %s to regrade", dir, record.CaseFile)
	}
	lc := run.Case.Case
	for _, r := range c.Grader.Rubrics {
		i := slices.IndexFunc(lc.Assertions, func(a lux.AssertionSpec) bool { return a.ID == r.Assertion })
		if i < 0 || lc.Assertions[i].Type != "rubric" {
			return nil, fmt.Sprintf("the case of run %s has no rubric assertion %q", dir, r.Assertion)
		}
	}
	return &labelled{label: l, runDir: dir, run: &lc}, ""
}

// verifyLabels checks every labelled run against its seal and its
// evidence's fingerprint before anything is graded.
func (s *state) verifyLabels(ctx context.Context) error {
	var probs []string
	for _, id := range sortedKeys(s.corp.labels) {
		lb := s.corp.labels[id]
		if _, err := record.VerifySeal(lb.runDir); err != nil {
			probs = append(probs, fmt.Sprintf("label %s: %v", id, err))
			continue
		}
		run, err := record.ReadRun(lb.runDir, record.ReadOptions{Events: true})
		if err == nil {
			_, err = record.VerifyEvidence(ctx, run)
		}
		if err != nil {
			probs = append(probs, fmt.Sprintf("label %s: %v", id, err))
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("experiment: campaign %s: the labelled runs changed since they were labelled (they are never graded):\n  %s", s.camp.ID, strings.Join(probs, "\n  "))
	}
	return nil
}

// rubricCase is the case of lb's run with the candidate's rubrics.
func (c *Campaign) rubricCase(lb *labelled, cand *Candidate) (*lux.Case, error) {
	out := *lb.run
	out.Assertions = slices.Clone(lb.run.Assertions)
	for _, r := range c.Grader.Rubrics {
		text, ok := cand.Files[r.File]
		if !ok {
			return nil, fmt.Errorf("experiment: grader.rubrics: %s is not a mutable file of the subject", r.File)
		}
		i := slices.IndexFunc(out.Assertions, func(a lux.AssertionSpec) bool { return a.ID == r.Assertion })
		spec := out.Assertions[i]
		cfg := make(map[string]any, len(spec.Config)+1)
		for k, v := range spec.Config {
			cfg[k] = v
		}
		if strings.HasSuffix(r.File, ".json") {
			var fields map[string]any
			if err := json.Unmarshal([]byte(text), &fields); err != nil {
				return nil, fmt.Errorf("experiment: candidate %s: rubric %s is not a JSON object: %v", cand.ID, r.File, err)
			}
			for k, v := range fields {
				if k == "threshold" {
					t, ok := v.(float64)
					if !ok {
						return nil, fmt.Errorf("experiment: candidate %s: rubric %s: threshold is not a number", cand.ID, r.File)
					}
					spec.Threshold = t
					continue
				}
				cfg[k] = v
			}
		} else {
			cfg["criteria"] = strings.TrimSpace(text)
		}
		spec.Config = cfg
		out.Assertions[i] = spec
	}
	return &out, nil
}

// maxRubricCalls is the most judge calls grading c can make: a rubric
// assertion asks its judge up to rubric.Attempts times (an invalid answer
// asks again).
func maxRubricCalls(c *lux.Case) int {
	n := 0
	for _, a := range c.Assertions {
		if a.Type == rubric.Type {
			n += rubric.Attempts
		}
	}
	return n
}

// graderOrchestrator is what grades: the registry's assertions, the judge
// as the project's harness model.
func (s *state) graderOrchestrator() *orchestrator.Orchestrator {
	var judge any
	if !reflect.ValueOf(s.camp.Grader.Judge).IsZero() {
		judge = s.camp.Grader.Judge
	}
	return orchestrator.New(s.reg, orchestrator.Options{RunsRoot: s.runsRoot, Harness: judge, Fsync: s.opts.Fsync})
}

// labelsHash identifies the selected labels per split.
func labelsHash(corp *corpus) (string, error) {
	type entry struct {
		Split string
		Label labels.Label
	}
	var all []entry
	for _, split := range corp.splits {
		for _, lc := range corp.cases[split] {
			all = append(all, entry{split, corp.labels[lc.ID].label})
		}
	}
	return digest.Value(all)
}

// runGraderUnit grades the unit's labelled run with its candidate's
// rubrics and records the unit. Its error is a ledger that cannot be
// written; a grading that fails is recorded in the unit.
func (s *state) runGraderUnit(ctx context.Context, u plannedUnit, total int) error {
	s.progress(Progress{Candidate: u.cand.ID, Profile: u.key.Profile, Split: u.key.Split, CaseID: u.key.CaseID, Repetition: u.key.Repetition, Total: total})
	// The reservation is on disk before the judge is called: a unit killed
	// mid-grading counts on resume as having made every call it could.
	if err := s.journal.appendSynced(journalEntry{Kind: "attempt", Unit: u.id, ReservedJudgeCalls: u.judgeCalls, WallTimeMs: s.activeMs()}); err != nil {
		return err
	}
	lb := s.corp.labels[u.key.CaseID]
	var g *record.Regrading
	c, err := s.camp.rubricCase(lb, u.cand)
	if err == nil {
		g, err = s.grader.Grade(ctx, lb.runDir, c)
	}
	if ctx.Err() != nil {
		// Not finished: it grades again on resume, and what it spent is
		// counted as the journal's replay will count it, at its
		// reservation.
		s.mu.Lock()
		s.reserved -= u.judgeCalls
		s.spend.JudgeCalls += u.judgeCalls
		s.spend.InterruptedJudgeCalls += u.judgeCalls
		s.mu.Unlock()
		return nil
	}
	unit := s.graderUnit(u, lb, g, err)
	if err := s.record(unit); err != nil {
		return err
	}
	s.mu.Lock()
	s.reserved -= u.judgeCalls
	s.finished++
	done := s.finished
	s.mu.Unlock()
	p := Progress{Done: done, Total: total, Candidate: u.cand.ID, Profile: u.key.Profile, Split: u.key.Split,
		CaseID: u.key.CaseID, Repetition: u.key.Repetition, Finished: true, Passed: unit.Sample.Passed, Elapsed: time.Since(s.segment)}
	if unit.Error != "" {
		p.Err = fmt.Errorf("%s", unit.Error)
	}
	s.progress(p)
	return nil
}

// graderUnit scores a grading against its label.
func (s *state) graderUnit(u plannedUnit, lb *labelled, g *record.Regrading, gradeErr error) *Unit {
	// Relative to the runs root, as every unit's run ("../" when the
	// labelled runs are elsewhere).
	abs, err := filepath.Abs(lb.runDir)
	if err != nil {
		abs = lb.runDir
	}
	rel, err := filepath.Rel(s.runsRoot, abs)
	if err != nil {
		rel = abs
	}
	rel = filepath.ToSlash(rel)
	ident, _ := digest.Value(map[string]any{"label": lb.label.ID, "runId": lb.label.RunID, "evidence": lb.label.Evidence})
	sample := record.Sample{CaseID: u.key.CaseID, Repetition: u.key.Repetition, Cluster: lb.label.CaseID, RunDir: rel,
		ExitReason: lux.ExitDone, IdentityHash: ident, Metrics: map[string]float64{}}
	unit := &Unit{SchemaVersion: 1, ID: u.id, Candidate: u.cand.ID, CandidateHash: u.cand.Hash, Profile: u.key.Profile,
		Split: u.key.Split, CaseID: u.key.CaseID, Cluster: lb.label.CaseID, Repetition: u.key.Repetition, RunDir: rel,
		Label: &lb.label, FinishedAt: time.Now().UTC()}
	var rep *record.Grading
	if gradeErr != nil {
		unit.Error = gradeErr.Error()
	} else {
		rep = g.Report
		unit.Grading = rep
		unit.JudgeCalls = g.JudgeUsage.Calls
		unit.Tokens = g.JudgeUsage.Total()
		unit.CostUSD = g.JudgeUsage.CostUSD
	}
	scoreLabel(&sample, lb.label.Expected, rep)
	sample.Metrics[MetricJudgeCalls] = float64(unit.JudgeCalls)
	sample.Metrics[MetricJudgeTokens] = float64(unit.Tokens)
	sample.Metrics[MetricJudgeCost] = unit.CostUSD
	unit.Sample = sample
	return unit
}

// scoreLabel sets the sample's verdict (the case verdict agrees with the
// label) and its judge metrics from the grading rep (nil: it failed).
func scoreLabel(s *record.Sample, exp labels.Expected, rep *record.Grading) {
	bit := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	abstained := rep == nil || rep.Passed == nil
	var absErr []float64
	if exp.Passed != nil {
		agree := !abstained && *rep.Passed == *exp.Passed
		s.Passed = &agree
		s.Metrics[MetricAgreement] = bit(agree)
		if !abstained {
			if *exp.Passed {
				s.Metrics[MetricFalseNegative] = bit(!*rep.Passed)
			} else {
				s.Metrics[MetricFalsePositive] = bit(*rep.Passed)
			}
		}
	}
	if exp.Score != nil && rep != nil && rep.Score != nil {
		absErr = append(absErr, abs(*rep.Score-*exp.Score))
	}
	if len(exp.Assertions) > 0 {
		agreed := 0
		for _, id := range sortedKeys(exp.Assertions) {
			al := exp.Assertions[id]
			out := outcome(rep, id)
			if out == nil || out.Error != "" {
				abstained = true
				continue
			}
			if out.Passed == al.Passed {
				agreed++
			}
			if al.Score != nil {
				absErr = append(absErr, abs(out.Score-*al.Score))
			}
		}
		s.Metrics[MetricAssertionAgreement] = float64(agreed) / float64(len(exp.Assertions))
	}
	s.Metrics[MetricAbstention] = bit(abstained)
	if len(absErr) > 0 {
		sum := 0.0
		for _, v := range absErr {
			sum += v
		}
		s.Metrics[MetricScoreError] = sum / float64(len(absErr))
	}
}

func outcome(rep *record.Grading, id string) *record.AssertionOutcome {
	if rep == nil {
		return nil
	}
	for i := range rep.Assertions {
		if rep.Assertions[i].ID == id {
			return &rep.Assertions[i]
		}
	}
	return nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
