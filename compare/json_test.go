package compare

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The JSON form of a suite comparison has exactly the field names the
// package documentation lists, nested ones included; fields that are
// only sometimes there (omitted when empty) are named in maybe.
func TestSuiteJSONKeys(t *testing.T) {
	a := rvSuite(rvPass("x", 1).in("k"), rvPass("y", 2).in("k"), rvFail("z", 3), rvPass("w", 4), rvPass("old", 1))
	b := rvSuite(rvPass("x", 2).in("k"), rvFail("y", 3).in("k"), rvPass("z", 5), rvPass("w", 4), rvPass("new", 1))
	a.Dir, b.Dir = "suites/a", "suites/b"
	b.Summary.Samples[3].IdentityHash = "other" // w: an identity mismatch
	docs := map[string][]string{
		"":               {"a", "b", "verdict", "reasons", "gate", "settings", "counts", "onlyA", "onlyB", "mismatches", "varied", "cases", "effects", "flips", "warnings", "effectWarnings"},
		"a":              {"dir", "suiteId", "status", "attempts", "runs", "cases", "passed", "failed", "errored", "cancelled", "ungraded", "pending", "passRate"},
		"gate":           {"failed", "reasons", "checks"},
		"checks":         {"rule", "metric", "test", "failed", "cases", "detail"},
		"settings":       {"method", "level", "resamples", "seed", "passRateTolerance", "strict", "gateMetrics", "vary"},
		"counts":         {"paired", "onlyA", "onlyB", "mismatched", "clusters"},
		"mismatches":     {"caseId", "mismatches"},
		"cases":          {"caseId", "cluster", "runs", "passRate", "passed", "score", "status", "fallP", "riseP", "testable", "gateFailed", "gateRule"},
		"effects":        {"metric", "unit", "better", "a", "b", "delta", "cases", "dropped", "runsWith", "interval", "significant", "outcome", "noChange", "unavailable", "warnings"},
		"effectWarnings": {"code", "message", "metrics"},
		"interval":       {"lower", "upper", "method", "level", "stdErr", "units", "clustered", "resamples", "clipped"},
		"flips":          {"passToFail", "failToPass", "mcnemarP"},
		"warnings":       {"code", "message"},
	}
	maybe := map[string][]string{
		"cases":    {"cluster"},
		"effects":  {"unavailable"},
		"checks":   {"metric", "cases"},
		"interval": {"clipped"},
	}
	for _, o := range []Options{{Method: stats.PercentileBootstrap}, {Method: stats.PercentileBootstrap, Seed: 9, Resamples: 1500}} {
		c, err := SuiteRecords(ctx, a, b, o)
		require.NoError(t, err)
		js, err := json.Marshal(c)
		require.NoError(t, err)
		var top map[string]any
		require.NoError(t, json.Unmarshal(js, &top))
		seen := map[string]map[string]bool{}
		note := func(where string, v any) {
			var objs []map[string]any
			switch x := v.(type) {
			case map[string]any:
				objs = append(objs, x)
			case []any:
				for _, e := range x {
					if m, ok := e.(map[string]any); ok {
						objs = append(objs, m)
					}
				}
			}
			for _, m := range objs {
				if seen[where] == nil {
					seen[where] = map[string]bool{}
				}
				for k := range m {
					seen[where][k] = true
				}
			}
		}
		note("", top)
		for _, k := range []string{"a", "gate", "settings", "counts", "mismatches", "cases", "effects", "flips", "warnings", "effectWarnings"} {
			note(k, top[k])
		}
		note("checks", top["gate"].(map[string]any)["checks"])
		for _, e := range top["effects"].([]any) {
			note("interval", e.(map[string]any)["interval"])
			note("warnings", e.(map[string]any)["warnings"])
		}
		for where, want := range docs {
			var got []string
			for k := range seen[where] {
				got = append(got, k)
			}
			slices.Sort(got)
			var must []string
			for _, k := range want {
				if !slices.Contains(maybe[where], k) || seen[where][k] {
					must = append(must, k)
				}
			}
			slices.Sort(must)
			assert.Equal(t, must, got, "keys of %q with %+v", where, o)
		}
		// The settings round-trip.
		var back SuiteComparison
		require.NoError(t, json.Unmarshal(js, &back))
		assert.Equal(t, c.Settings, back.Settings)
	}
	// Without the bootstrap, resamples and seed mean nothing and are left out.
	c, err := SuiteRecords(ctx, a, b, Options{})
	require.NoError(t, err)
	js, err := json.Marshal(c.Settings)
	require.NoError(t, err)
	assert.JSONEq(t, `{"method":"t","level":0.95,"passRateTolerance":0,"strict":false,"gateMetrics":["passRate"],"vary":[]}`, string(js))
}

// The JSON form of a run comparison has the documented field names.
func TestRunJSONKeys(t *testing.T) {
	rb := run("runs/hello/b", "hello")
	rb.Metadata.Provenance.Runtime.Model = "other"
	rb.Grading = report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0))
	rb.Grading.Assertions[1].Error = "timed out"
	c, err := RunRecords(run("runs/hello/a", "hello"), rb, Options{})
	require.NoError(t, err)
	js, err := json.Marshal(c)
	require.NoError(t, err)
	var top map[string]any
	require.NoError(t, json.Unmarshal(js, &top))
	keysOf := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	assert.Equal(t, sorted("a", "b", "verdict", "reasons", "gate", "mismatches", "run", "grading", "artifacts"), keysOf(top))
	assert.Equal(t, sorted("dir", "runId", "caseId", "driver", "startedAt"), keysOf(top["a"]), "suiteId and repetition only for runs of a suite")
	assert.Equal(t, sorted("failed", "reasons", "checks"), keysOf(top["gate"]))
	for _, ch := range top["gate"].(map[string]any)["checks"].([]any) {
		assert.Subset(t, []string{"rule", "metric", "test", "failed", "cases", "detail"}, keysOf(ch))
	}
	m := top["mismatches"].([]any)[0]
	assert.Subset(t, []string{"field", "a", "b", "changes", "moreChanges", "flag", "diff", "note", "varied", "within"}, keysOf(m))
	assert.Equal(t, sorted("exitReason", "reason", "operationalFailure", "durationMs", "interrupts", "toolCalls", "artifacts",
		"agentUsageAvailable", "agentTokens", "agentCostUsd", "harnessTokens", "answererTokens", "judgeTokens",
		"harnessCostUsd", "answererCostUsd", "judgeCostUsd", "harnessUnpricedCalls", "usage"), keysOf(top["run"]))
	for _, v := range top["run"].(map[string]any) {
		assert.Equal(t, []string{"a", "b"}, keysOf(v))
	}
	g := top["grading"].(map[string]any)
	assert.Equal(t, sorted("available", "verdict", "score", "incomplete", "counts", "assertions"), keysOf(g))
	assert.Equal(t, sorted("regressed", "improved", "scoreUp", "scoreDown", "ungraded", "added", "removed", "unchanged"), keysOf(g["counts"]))
	as := g["assertions"].([]any)
	require.Len(t, as, 2)
	assert.Equal(t, sorted("key", "type", "name", "status", "a", "b"), keysOf(as[0]))
	assert.Equal(t, sorted("passed", "score"), keysOf(as[1].(map[string]any)["a"]))
	assert.Equal(t, sorted("passed", "score", "error"), keysOf(as[1].(map[string]any)["b"]))
	assert.Equal(t, sorted("added", "removed", "changed", "unchanged", "diffs"), keysOf(top["artifacts"]))
}
