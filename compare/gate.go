package compare

import "fmt"

// Gate is the regression gate of a comparison: a CI job fails when Failed
// is true (the command line exits non-zero). Checks says, rule by rule,
// what the gate looked at, the test each rule rests on and what it found,
// so that a gate that passed says why as plainly as one that failed.
type Gate struct {
	Failed  bool        `json:"failed"`
	Reasons []string    `json:"reasons"` // why it failed; empty when it passed
	Checks  []GateCheck `json:"checks"`
}

// GateCheck is one rule of a gate and its outcome.
type GateCheck struct {
	// Rule is one of the Gate* constants.
	Rule string `json:"rule"`
	// Metric is the gated metric of a GateMetric rule.
	Metric string `json:"metric,omitempty"`
	// Test is what the rule rests on, e.g. "95% t interval" or "Fisher's
	// exact test per case, one-sided, α = 0.05".
	Test   string `json:"test"`
	Failed bool   `json:"failed"`
	// Cases are the cases that failed the rule (GateCaseFalls, GateStrict).
	Cases []string `json:"cases,omitempty"`
	// Detail says what the rule found, in one line.
	Detail string `json:"detail"`
}

// The rules of a gate.
const (
	// GateIdentity: every pair of runs measures the same thing (no
	// identity field differs that Options.Vary does not list).
	GateIdentity = "identity"
	// GateGrading (runs): neither the case verdict nor any assertion went
	// from pass to fail or to no verdict.
	GateGrading = "grading"
	// GateMetric (suites): the interval of a gate metric does not lie
	// entirely on its worse side of 0.
	GateMetric = "metric"
	// GateCaseFalls (suites): no case's pass rate fell by more than
	// Options.PassRateTolerance with a one-sided Fisher exact p-value at
	// or below 1 − Level, on the case's own runs.
	GateCaseFalls = "case-falls"
	// GateUntestedFalls (suites): no case's pass rate fell by more than
	// Options.PassRateTolerance when its runs are too few for any fall to
	// be significant on its own (CaseDelta.Testable is false: one or two
	// runs a side at 95 %). Such a fall cannot be tested, so every one
	// counts, significant or not: a pass → fail with one run per case
	// fails the gate.
	GateUntestedFalls = "untested-falls"
	// GateSignTest (suites with fewer than stats.FewUnits independent
	// units): the exact sign test over the units (cases, or clusters when
	// clustered) whose pass rate moved by more than the tolerance is not
	// significant for a fall, one-sided, at 1 − Level. It catches many
	// cases that each fell a little, none significantly on its own, too
	// few for a useful interval: 5 of 5 fell has p = 1/32.
	GateSignTest = "sign-test"
	// GateStrict (suites, with Options.Strict): no case regressed beyond
	// the tolerance or flipped from pass to fail, significant or not.
	GateStrict = "strict"
)

// check records a rule and its outcome; a failed rule fails the gate with
// reason (when empty, the rule, the test it rests on and its detail).
func (g *Gate) check(c GateCheck, reason string) {
	g.Checks = append(g.Checks, c)
	if c.Failed {
		if reason == "" {
			reason = fmt.Sprintf("%s (%s): %s", checkLabel(c), c.Test, c.Detail)
		}
		g.fail(reason)
	}
}

func (g *Gate) fail(reason string) {
	g.Failed = true
	g.Reasons = append(g.Reasons, reason)
}
