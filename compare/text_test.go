package compare

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenSuites writes two suites: twelve cases in two declared clusters
// and four loose cases, two repetitions each. In B two cases fail, one
// fails once, one case's agent CLI changed, the agent reports no usage,
// runs are slower, one case was dropped and one added.
func goldenSuites(t *testing.T) (root, a, b string) {
	root = t.TempDir()
	cluster := func(i int) string {
		switch {
		case i < 4:
			return "repo-a"
		case i < 8:
			return "repo-b"
		}
		return ""
	}
	mk := func(isB bool) []spec {
		runs := grid(12, 2, func(i, r int) spec {
			s := pass(caseID(i), cluster(i))
			if isB && (i == 1 || i == 5 || i == 9 && r == 1) {
				s = fail(caseID(i), cluster(i))
			}
			if !isB && i == 11 {
				s = fail(caseID(i), cluster(i))
			}
			ms := 1000 + 50*i + 10*r
			if isB {
				ms += 120 + 5*i
			}
			s = withDuration(s, ms)
			prev := s.mutate
			s.mutate = func(m *record.Metadata) {
				prev(m)
				if isB {
					m.Usage.Agent, m.Usage.AgentCostUSD = nil, nil
					if i == 10 {
						m.Provenance.Runtime.Commands[0].Version = "1.1"
					}
				}
			}
			return s
		})
		if isB {
			return append(runs, pass("new-case", ""))
		}
		return append(runs, pass("old-case", ""))
	}
	a, _ = writeSuite(t, root, mk(false), suiteOpts{summary: true, runs: true})
	b, _ = writeSuite(t, root, mk(true), suiteOpts{summary: true, runs: true})
	return root, a, b
}

func TestSuiteTextGolden(t *testing.T) {
	root, a, b := goldenSuites(t)
	tests := []struct {
		name string
		a, b string
		opts Options
	}{
		{"suite_not_comparable.txt", a, b, Options{}},
		{"suite_varied.txt", a, b, Options{Vary: []Field{FieldRuntime}, GateMetrics: []string{MetricPassRate, "durationMs"}}},
		{"suite_bootstrap_strict.txt", a, b, Options{Vary: []Field{FieldRuntime}, Method: "percentile-bootstrap", Seed: 1, Strict: true}},
		{"suite_self.txt", a, a, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Suites(ctx, tt.a, tt.b, tt.opts)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, c.WriteText(&buf))
			checkGolden(t, tt.name, buf.String(), root)
		})
	}
}

// The JSON forms are pinned by golden files: a renamed field fails here.
func TestJSONGolden(t *testing.T) {
	root, a, b := goldenSuites(t)
	sc, err := Suites(ctx, a, b, Options{Vary: []Field{FieldRuntime}})
	require.NoError(t, err)
	js, err := json.MarshalIndent(sc, "", "  ")
	require.NoError(t, err)
	checkGolden(t, "suite.json", string(js)+"\n", root)

	rb := run("runs/hello/b", "hello")
	rb.Metadata.Usage.Agent, rb.Metadata.Usage.AgentCostUSD = nil, nil
	rb.Metadata.Provenance.Runtime.Model = "other"
	rb.Grading = report(ptr(false), ptr(0.5), outcome("readme", true, 1), outcome("tests", false, 0))
	rc, err := RunRecords(run("runs/hello/a", "hello"), rb, Options{})
	require.NoError(t, err)
	js, err = json.MarshalIndent(rc, "", "  ")
	require.NoError(t, err)
	checkGolden(t, "run.json", string(js)+"\n", "")
}

// Every key of the documented JSON form is present in the output.
func TestJSONDocumentedKeys(t *testing.T) {
	_, a, b := goldenSuites(t)
	sc, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "cases", "counts", "effectWarnings", "effects", "flips", "gate", "mismatches", "onlyA", "onlyB",
		"reasons", "settings", "varied", "verdict", "warnings"}, keys(t, sc))
	rc, err := RunRecords(run("a", "x"), run("b", "x"), Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "artifacts", "b", "gate", "grading", "mismatches", "reasons", "run", "verdict"}, keys(t, rc))
}

func keys(t *testing.T, v any) []string {
	js, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(js, &m))
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestFormat(t *testing.T) {
	tests := []struct {
		unit  string
		v     float64
		value string
		delta string
	}{
		{"fraction", 0.8125, "81.2%", "+81.2 pts"},
		{"fraction", -0.05, "-5.0%", "-5.0 pts"},
		{"score", 0.5, "0.500", "+0.500"},
		{"ms", 850, "850ms", "+850ms"},
		{"ms", 0.4, "0.4ms", "+0.4ms"},
		{"ms", -1250, "-1.25s", "-1.25s"},
		{"tokens", 1234.56, "1234.6", "+1234.6"},
		{"usd", 0.0125, "$0.0125", "+$0.0125"},
		{"bytes", 42, "42 B", "+42 B"},
		{"count", 2.5, "2.5", "+2.5"},
		{"count", 0, "0", "+0"},
		{"count", -0.0, "0", "+0"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.value, formatValue(tt.unit, tt.v), "%s %v", tt.unit, tt.v)
		assert.Equal(t, tt.delta, formatDelta(tt.unit, tt.v), "%s %v", tt.unit, tt.v)
	}
}
