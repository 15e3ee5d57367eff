package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/safecall"
	"github.com/luxeval/lux/record"
)

// grade evaluates every check of p over run, in order, and returns the
// report, the judges' usage and the first assertion's error.
//
//   - An assertion passes when it evaluates without error, its check
//     passes, and its score reaches its threshold.
//   - The case score is the weighted mean of the scores of the assertions
//     that evaluated; the case passes when all of them passed.
//   - An assertion that could not be evaluated (an error, a panic, a score
//     outside [0,1]) leaves the case without a verdict: casePassed and
//     caseScore are null and incomplete says phase "grading".
//   - No assertions: no verdict, and nothing incomplete.
//
// limit bounds the wait for a check that ignores ctx's cancellation: the
// check is abandoned when limit is done.
func grade(ctx, limit context.Context, p *plan, run *lux.Run) (*record.Grading, lux.ModelUsage, error) {
	rep := &record.Grading{SchemaVersion: record.SchemaVersion, Assertions: []record.AssertionOutcome{}}
	var judge lux.ModelUsage
	if len(p.checks) == 0 {
		return rep, judge, nil
	}
	var sumW, sumWS float64
	allPassed := true
	var firstErr error
	for _, c := range p.checks {
		threshold := c.spec.Threshold
		if threshold == 0 && c.plugin != nil {
			threshold = c.plugin.DefaultThreshold
		}
		out := record.AssertionOutcome{
			ID: c.id, Type: c.spec.Type, Name: c.spec.DisplayName(),
			Weight: c.spec.EffectiveWeight(), Threshold: threshold,
		}
		start := time.Now()
		res, err := evaluate(ctx, limit, c.checker, run)
		out.DurationMs = time.Since(start).Milliseconds()
		if err == nil && (math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1) {
			err = fmt.Errorf("score %v is outside [0,1]", res.Score)
		}
		if err == nil && res.Detail != nil {
			if jerr := safecall.Protect(func() error { _, err := json.Marshal(res.Detail); return err }); jerr != nil {
				err = fmt.Errorf("its detail does not encode as JSON: %v", jerr)
			}
		}
		if res.Usage != nil {
			u := *res.Usage
			out.Usage = &u
			judge = judge.Add(u)
		}
		if err != nil {
			out.Error = err.Error()
			if firstErr == nil {
				firstErr = fmt.Errorf("assertion %s: %w", c.id, err)
			}
		} else {
			out.Passed = res.Passed && res.Score >= threshold
			out.Score = res.Score
			out.Comment = res.Comment
			out.Detail = res.Detail
			sumW += out.Weight
			sumWS += out.Weight * res.Score
			allPassed = allPassed && out.Passed
		}
		rep.Assertions = append(rep.Assertions, out)
	}
	if firstErr != nil {
		rep.Incomplete = &record.Incomplete{ExitReason: lux.ExitError, Phase: record.PhaseGrading, Reason: firstErr.Error()}
		return rep, judge, firstErr
	}
	score := 0.0
	if sumW > 0 {
		score = sumWS / sumW
	}
	rep.Passed, rep.Score = &allPassed, &score
	return rep, judge, nil
}

// evaluate runs one check, turning a panic into an error, and abandons it
// when limit is done.
func evaluate(ctx, limit context.Context, c lux.Check, run *lux.Run) (lux.Result, error) {
	if err := ctx.Err(); err != nil {
		return lux.Result{}, fmt.Errorf("not evaluated: %w", err)
	}
	var res lux.Result
	err := safecall.Do(limit, "Evaluate", func() (err error) {
		res, err = c.Evaluate(ctx, run)
		return err
	})
	// A failed check's result still carries what its judge spent.
	return res, err
}

// failUnlessDone applies the run's outcome to its grading: a run that did
// not end done never passes (a verdict of pass becomes fail; no verdict
// stays none), and the report says why.
func failUnlessDone(rep *record.Grading, m *record.Metadata) *record.Grading {
	if m.ExitReason == lux.ExitDone {
		return rep
	}
	if rep.Incomplete == nil {
		rep.Incomplete = &record.Incomplete{ExitReason: m.ExitReason, Phase: record.PhaseRun, Reason: m.Reason}
	}
	if rep.Passed != nil && *rep.Passed {
		no := false
		rep.Passed = &no
	}
	return rep
}
