package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safecall"
	"github.com/luxeval/lux/record"
)

// Regrade grades the run recorded in runDir again, with the assertion
// plugins of this Orchestrator's registry and the case as recorded in its
// case.json (or replacement, when not nil: the same case with new or
// changed assertions). The run's evidence is read from its record — the
// events, artifacts.json and the files under artifacts/ — and nothing of
// the run is modified: the new grading goes to a fresh file under
// <runDir>/gradings/, whose path is returned with it.
//
// The record is verified first: every file against its seal (see
// record.VerifySeal; a record changed since is refused with an error
// wrapping record.ErrSealBroken), and the evidence against the fingerprint
// run.json holds (see record.VerifyEvidence): a record whose events or
// artifacts changed since the run, or whose workspace gained or lost a
// file, is refused with an error wrapping record.ErrEvidenceChanged, never
// graded. A sealed record is sealed again with its new grading.
//
// The rules are those of a live run: a run that did not end done never
// passes, and an assertion that cannot be evaluated leaves no verdict.
// Problems with the assertions are reported all at once, as by Validate.
func (o *Orchestrator) Regrade(ctx context.Context, runDir string, replacement *lux.Case) (*record.Regrading, string, error) {
	g, err := o.Grade(ctx, runDir, replacement)
	if err != nil {
		return nil, "", err
	}
	var path string
	if g.RecordSeal == record.SealVerified {
		// The new grading joins the record's seal.
		var key *record.SealKey
		if key, err = record.FindSealKey(runDir); err == nil {
			path, err = o.writer.WriteRegradingSealed(runDir, g, key)
		}
	} else {
		path, err = o.writer.WriteRegrading(runDir, g)
	}
	if err != nil {
		return g, "", err
	}
	return g, filepath.Clean(path), nil
}

// Grade is Regrade without the write: it verifies the record the same way
// (seal, then evidence), grades the run with replacement (or the case as
// recorded) and returns the grading, leaving the record untouched. A
// grader experiment grades frozen runs with candidate rubrics this way,
// keeping the gradings in its own ledger.
func (o *Orchestrator) Grade(ctx context.Context, runDir string, replacement *lux.Case) (*record.Regrading, error) {
	run, err := record.ReadRun(runDir, record.ReadOptions{Events: true})
	if err != nil {
		return nil, err
	}
	// Every file of the record, its earlier gradings too, is as sealed.
	seal, err := record.VerifySeal(runDir)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: regrade %s: %w", runDir, err)
	}
	verified, err := record.VerifyEvidence(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: regrade %s: %w (a record that changed since it was made is not graded)", runDir, err)
	}
	c := replacement
	if c == nil {
		if run.Case == nil {
			return nil, fmt.Errorf("orchestrator: regrade %s: the run has no %s; pass the case to grade it with", runDir, record.CaseFile)
		}
		cc := run.Case.Case
		c = &cc
	}
	var probs lux.Problems
	probs.Merge("", c.Validate())
	checks, evaluators := o.assertionPlan(c, &probs)
	if err := probs.Err(lux.ErrInvalidCase); err != nil {
		return nil, fmt.Errorf("orchestrator: regrade %s: case %s: %w", runDir, caseLabel(c), err)
	}
	h, err := hashGrading(c, evaluators, run.Metadata.Driver.Name, run.Metadata.Answerer.Name)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: regrade %s: %w", runDir, err)
	}
	g := &record.Regrading{SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, EvidenceVerified: verified, RecordSeal: seal,
		CaseHash: h.caseHash, AssertionsHash: h.assertionsHash, EvaluatorConfigHash: h.evaluatorConfigHash}

	evidence := run.Evidence()
	evidence.Case = c
	// Grading writes only into a scratch directory of its own, never into
	// the record.
	if evidence.Scratch, err = os.MkdirTemp("", "lux-grade-"); err != nil {
		return nil, fmt.Errorf("orchestrator: regrade %s: %w", runDir, err)
	}
	defer os.RemoveAll(evidence.Scratch)
	limit, release := safecall.After(ctx, o.opts.CleanupTimeout)
	defer release()
	rep, judge, _ := grade(ctx, limit, &plan{checks: checks}, evidence)
	g.Report = failUnlessDone(rep, run.Metadata)
	g.JudgeUsage = judge
	g.GradedAt = time.Now().UTC()
	return g, nil
}

// ValidateAssertions checks c and its assertions as Grade would before
// grading with them (every problem at once, wrapping lux.ErrInvalidCase),
// without reading any run.
func (o *Orchestrator) ValidateAssertions(c *lux.Case) error {
	var probs lux.Problems
	probs.Merge("", c.Validate())
	o.assertionPlan(c, &probs)
	if err := probs.Err(lux.ErrInvalidCase); err != nil {
		return fmt.Errorf("orchestrator: case %s: %w", caseLabel(c), err)
	}
	return nil
}
