package orchestrator

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/luxeval/lux"
)

// grade evaluates every check of p over run, in order, and returns the
// report and the judges' usage.
//
//   - An assertion passes when it evaluates without error, its check
//     passes, and its score reaches its threshold.
//   - The case score is the weighted mean of the scores of the assertions
//     that evaluated; the case passes when all of them passed.
//   - An assertion that could not be evaluated (an error, a panic, a score
//     outside [0,1]) leaves the case without a verdict: casePassed and
//     caseScore are null and incomplete says phase "grading".
//   - No assertions: no verdict, and nothing incomplete.
func grade(ctx context.Context, p *plan, run *lux.Run) (*lux.GradingReport, lux.TokenUsage) {
	rep := &lux.GradingReport{SchemaVersion: lux.SchemaVersion, Assertions: []lux.AssertionOutcome{}}
	var judge lux.TokenUsage
	if len(p.checks) == 0 {
		return rep, judge
	}
	var sumW, sumWS float64
	allPassed := true
	var firstErr string
	for _, c := range p.checks {
		out := lux.AssertionOutcome{
			ID: c.id, Type: c.spec.Type, Name: c.spec.DisplayName(),
			Weight: c.spec.EffectiveWeight(), Threshold: c.spec.Threshold,
		}
		start := time.Now()
		res, err := evaluate(ctx, c.checker, run)
		out.DurationMs = time.Since(start).Milliseconds()
		if err == nil && (math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1) {
			err = fmt.Errorf("score %v is outside [0,1]", res.Score)
		}
		if res.Usage != nil {
			u := *res.Usage
			out.Usage = &u
			judge = judge.Add(u)
		}
		if err != nil {
			out.Error = err.Error()
			if firstErr == "" {
				firstErr = fmt.Sprintf("assertion %s: %s", c.id, out.Error)
			}
		} else {
			out.Passed = res.Passed && res.Score >= c.spec.Threshold
			out.Score = res.Score
			out.Comment = res.Comment
			out.Detail = res.Detail
			sumW += out.Weight
			sumWS += out.Weight * res.Score
			allPassed = allPassed && out.Passed
		}
		rep.Assertions = append(rep.Assertions, out)
	}
	if firstErr != "" {
		rep.Incomplete = &lux.Incomplete{ExitReason: lux.ExitError, Phase: "grading", Reason: firstErr}
		return rep, judge
	}
	score := 0.0
	if sumW > 0 {
		score = sumWS / sumW
	}
	rep.Passed, rep.Score = &allPassed, &score
	return rep, judge
}

// evaluate runs one check, turning a panic into an error.
func evaluate(ctx context.Context, c lux.Check, run *lux.Run) (res lux.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return lux.Result{}, fmt.Errorf("not evaluated: %w", err)
	}
	return c.Evaluate(ctx, run)
}

// failUnlessDone applies the run's outcome to its grading: a run that did
// not end done never passes (a verdict of pass becomes fail; no verdict
// stays none), and the report says why.
func failUnlessDone(rep *lux.GradingReport, m *lux.RunMetadata) *lux.GradingReport {
	if m.ExitReason == lux.ExitDone {
		return rep
	}
	if rep.Incomplete == nil {
		rep.Incomplete = &lux.Incomplete{ExitReason: m.ExitReason, Phase: "run", Reason: m.Reason}
	}
	if rep.Passed != nil && *rep.Passed {
		no := false
		rep.Passed = &no
	}
	return rep
}
