package compare

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/golden"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// baseMeta is a complete run.json of case id.
func baseMeta(id string) *record.Metadata {
	return &record.Metadata{
		SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, RunID: id + "/subprocess/x", CaseID: id,
		StartedAt: t0, EndedAt: t0.Add(2 * time.Second), ExitReason: lux.ExitDone,
		Driver:   record.DriverInfo{Name: "subprocess", Ready: lux.Ready{AgentID: "echo", AgentVersion: "1.0", Detail: map[string]any{"sessionId": "s-1", "mode": "fast"}}},
		Answerer: record.RunAnswerer{Name: "scripted"},
		Usage: lux.Usage{
			Agent: &lux.TokenUsage{Input: 100, Output: 20, CacheRead: 300}, AgentCostUSD: ptr(0.25),
			Answerer: lux.ModelUsage{TokenUsage: lux.TokenUsage{Input: 5}}, Judge: lux.ModelUsage{TokenUsage: lux.TokenUsage{Output: 7}},
		},
		InterruptCounts: record.InterruptCounts{Ask: 1},
		ToolCalls:       record.ToolOutcomes{Reported: 3, Total: 3, Succeeded: 2, Failed: 1},
		Artifacts:       record.ArtifactStats{Count: 2, Bytes: 42},
		Phases:          record.PhaseDurations{Agent: 1900, Collect: 3, Grading: 10},
		Provenance: record.Provenance{
			Source:      &record.Source{CasePath: "cases/" + id + ".json", Git: &record.GitInfo{Commit: "abc123"}},
			Host:        record.Host{OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
			Runtime:     record.RuntimeInfo{Driver: "subprocess", Commands: []record.CommandInfo{{Name: "echoagent", Path: "/bin/echoagent", Version: "1.0"}}, Capabilities: []lux.Capability{lux.CanAsk, lux.ReportsUsage}},
			Environment: json.RawMessage(`{"image":"golang:1.26"}`),
			CaseHash:    "case-" + id, AssertionsHash: "asserts-" + id, FixturesHash: "fixtures-1", DriverConfigHash: "driver-1",
			AnswererConfigHash: "answerer-1", EvaluatorConfigHash: "evaluator-1",
		},
	}
}

func baseCase(id string) *record.CaseRecord {
	return &record.CaseRecord{Case: lux.Case{
		ID: id, Prompt: "write hello.txt saying hello", Fixtures: "fixtures/hello",
		Assertions: []lux.AssertionSpec{
			{ID: "readme", Type: "file-exists", Config: map[string]any{"path": "hello.txt"}},
			{ID: "tests", Type: "command", Config: map[string]any{"run": "go test ./..."}},
		},
	}, CasePath: "cases/" + id + ".json"}
}

func outcome(id string, passed bool, score float64) record.AssertionOutcome {
	return record.AssertionOutcome{ID: id, Type: "check", Name: "check " + id, Passed: passed, Score: score, Weight: 1}
}

func report(passed *bool, score *float64, as ...record.AssertionOutcome) *record.Grading {
	return &record.Grading{SchemaVersion: record.SchemaVersion, Passed: passed, Score: score, Assertions: as}
}

// passing is the grading of a run that passed both assertions.
func passing() *record.Grading {
	return report(ptr(true), ptr(1.0), outcome("readme", true, 1), outcome("tests", true, 1))
}

// run is an in-memory run record.
func run(dir, id string, mutate ...func(*record.Run)) *record.Run {
	r := &record.Run{Dir: dir, Case: baseCase(id), Metadata: baseMeta(id), Grading: passing(),
		Artifacts: []lux.Artifact{{Path: "hello.txt", Size: 6, SHA256: "aa"}, {Path: "go.mod", Size: 36, SHA256: "bb"}}}
	for _, m := range mutate {
		m(r)
	}
	return r
}

// writeRunDir writes r's files into a fresh run directory under root.
func writeRunDir(tb testing.TB, root string, r *record.Run) string {
	tb.Helper()
	dir, err := record.ReserveRunDir(root, r.Metadata.CaseID, r.Metadata.Driver.Name, r.Metadata.StartedAt)
	require.NoError(tb, err)
	w := record.Writer{}
	require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.MetadataFile), r.Metadata))
	if r.Case != nil {
		require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.CaseFile), r.Case))
	}
	if r.Grading != nil {
		require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.GradingFile), r.Grading))
	}
	if r.Artifacts != nil {
		require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.ArtifactsFile), r.Artifacts))
	}
	r.Dir = dir
	return dir
}

// spec is one run of a suite.
type spec struct {
	id      string
	cluster string
	passed  *bool // nil: ungraded
	score   *float64
	mutate  func(*record.Metadata)
}

func pass(id, cluster string) spec {
	return spec{id: id, cluster: cluster, passed: ptr(true), score: ptr(1.0)}
}
func fail(id, cluster string) spec {
	return spec{id: id, cluster: cluster, passed: ptr(false), score: ptr(0.0)}
}

// suiteOpts says what writeSuite puts on disk.
type suiteOpts struct {
	runs    bool // write each run's directory (run.json, grading.json, case.json)
	summary bool // write suite-summary.json
}

// writeSuite writes a suite of the given runs under root the way the
// orchestrator does, and returns its directory and record.
func writeSuite(tb testing.TB, root string, runs []spec, o suiteOpts) (string, *record.Suite) {
	tb.Helper()
	dir, err := record.ReserveSuiteDir(root, t0)
	require.NoError(tb, err)
	m := &record.SuiteManifest{
		SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, SuiteID: filepath.Base(dir), StartedAt: t0,
		Status: record.SuitePassed, Concurrency: 1, Repetitions: 1,
	}
	b := record.NewSummaryBuilder(m.SuiteID)
	reps := map[string]int{}
	w := record.Writer{}
	for i, sp := range runs {
		reps[sp.id]++
		meta := baseMeta(sp.id)
		meta.SuiteID, meta.Repetition = m.SuiteID, reps[sp.id]
		meta.StartedAt = t0.Add(time.Duration(i) * time.Second)
		meta.EndedAt = meta.StartedAt.Add(time.Duration(1000+10*i) * time.Millisecond)
		if sp.mutate != nil {
			sp.mutate(meta)
		}
		g := report(sp.passed, sp.score) // no assertions when ungraded
		item := record.SuiteItem{CaseID: sp.id, Repetition: reps[sp.id], Cluster: sp.cluster, Status: record.ItemCompleted,
			ExitReason: meta.ExitReason, Passed: sp.passed, Score: sp.score, RunVerdict: record.RunVerdict(meta, g)}
		if o.runs {
			c := baseCase(sp.id)
			c.Cluster = sp.cluster
			rd := writeRunDir(tb, filepath.Join(root, "runs"), &record.Run{Metadata: meta, Grading: g, Case: c})
			rel, err := filepath.Rel(dir, rd)
			require.NoError(tb, err)
			item.RunDir = filepath.ToSlash(rel)
		} else {
			item.RunDir = fmt.Sprintf("../../%s/%d", sp.id, i)
		}
		m.Items = append(m.Items, item)
		b.Add(i, item, meta, g)
	}
	end := t0.Add(time.Hour)
	m.EndedAt = &end
	require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.SuiteFile), m))
	s := &record.Suite{Dir: dir, Manifest: m}
	if o.summary {
		s.Summary = b.Build(m.Status, end)
		require.NoError(tb, w.WriteJSON(filepath.Join(dir, record.SuiteSummaryFile), s.Summary))
	}
	return dir, s
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
// Occurrences of tmp in got are replaced by $TMP first. JSON is compared
// structurally, so a last-bit difference of a float on another platform
// does not fail the test, but a renamed field does.
func checkGolden(t *testing.T, name, got, tmp string) {
	t.Helper()
	if tmp != "" {
		got = strings.ReplaceAll(got, tmp, "$TMP")
	}
	path := filepath.Join("testdata", name)
	if strings.HasSuffix(name, ".json") {
		golden.JSON[any](t, path, []byte(got), cmpopts.EquateApprox(0, 1e-12))
		return
	}
	golden.Equal(t, path, []byte(got))
}
