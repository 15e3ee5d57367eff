package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/report"
)

// verdictRun is a run ending one way, with the grading the orchestrator
// writes for it.
type verdictRun struct {
	id      string
	exit    lux.ExitReason
	harness bool            // the harness ended it (an operational failure)
	grading *record.Grading // nil: no grading.json
}

func verdictRuns() []verdictRun {
	yes, no := true, false
	one, zero := 1.0, 0.0
	graded := func(p *bool, s *float64, as ...record.AssertionOutcome) *record.Grading {
		return &record.Grading{SchemaVersion: record.SchemaVersion, Passed: p, Score: s, Assertions: as}
	}
	ended := func(exit lux.ExitReason) *record.Grading {
		g := graded(&no, &zero, record.AssertionOutcome{ID: "t", Name: "t", Passed: true, Score: 1, Threshold: 1})
		g.Incomplete = &record.Incomplete{ExitReason: exit, Phase: record.PhaseRun, Reason: "ended " + string(exit)}
		return g
	}
	couldNot := graded(nil, nil, record.AssertionOutcome{ID: "t", Name: "t", Error: "judge timed out"})
	couldNot.Incomplete = &record.Incomplete{Phase: record.PhaseGrading, Reason: "judge timed out"}
	return []verdictRun{
		{id: "done-pass", exit: lux.ExitDone, grading: graded(&yes, &one, record.AssertionOutcome{ID: "t", Name: "t", Passed: true, Score: 1})},
		{id: "done-fail", exit: lux.ExitDone, grading: graded(&no, &zero, record.AssertionOutcome{ID: "t", Name: "t", Score: 0, Threshold: 1})},
		{id: "done-ungraded", exit: lux.ExitDone, grading: graded(nil, nil)},
		{id: "done-could-not-grade", exit: lux.ExitDone, grading: couldNot},
		{id: "done-no-grading", exit: lux.ExitDone},
		{id: "error", exit: lux.ExitError, grading: ended(lux.ExitError)},
		{id: "harness-error", exit: lux.ExitError, harness: true, grading: ended(lux.ExitError)},
		{id: "timeout", exit: lux.ExitTimeout, grading: ended(lux.ExitTimeout)},
		{id: "idle", exit: lux.ExitIdleTimeout, grading: ended(lux.ExitIdleTimeout)},
		{id: "max-interactions", exit: lux.ExitMaxInteractions, grading: ended(lux.ExitMaxInteractions)},
		{id: "budget", exit: lux.ExitBudget, grading: ended(lux.ExitBudget)},
		{id: "cancelled", exit: lux.ExitCancelled, grading: ended(lux.ExitCancelled)},
	}
}

// writeVerdictSuite writes a suite of one run of each verdictRun, the
// way the orchestrator records it, and returns its directory and each
// run's directory and record verdict by case id.
func writeVerdictSuite(t *testing.T) (string, map[string]string, map[string]record.Verdict) {
	t.Helper()
	root := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dir, err := record.ReserveSuiteDir(root, t0)
	require.NoError(t, err)
	m := &record.SuiteManifest{SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, SuiteID: filepath.Base(dir),
		StartedAt: t0, Status: record.SuiteFailed, Concurrency: 1, Repetitions: 1}
	b := record.NewSummaryBuilder(m.SuiteID)
	w := record.Writer{}
	dirs, want := map[string]string{}, map[string]record.Verdict{}
	for i, vr := range verdictRuns() {
		start := t0.Add(time.Duration(i) * time.Second)
		meta := &record.Metadata{SchemaVersion: record.SchemaVersion, LuxVersion: lux.Version, RunID: vr.id + "/subprocess/x",
			CaseID: vr.id, SuiteID: m.SuiteID, Repetition: 1, StartedAt: start, EndedAt: start.Add(time.Second),
			ExitReason: vr.exit, Driver: record.DriverInfo{Name: "subprocess"}}
		if vr.exit != lux.ExitDone {
			meta.Reason = "ended " + string(vr.exit)
		}
		if vr.harness {
			meta.OperationalFailure = &record.OperationalFailure{Phase: record.PhaseDriver, Reason: "the agent's command is missing"}
		}
		rd, err := record.ReserveRunDir(filepath.Join(root, "runs"), vr.id, "subprocess", start)
		require.NoError(t, err)
		require.NoError(t, w.WriteJSON(filepath.Join(rd, record.MetadataFile), meta))
		require.NoError(t, w.WriteJSON(filepath.Join(rd, record.CaseFile), &record.CaseRecord{Case: lux.Case{ID: vr.id, Prompt: "p"}}))
		if vr.grading != nil {
			require.NoError(t, w.WriteJSON(filepath.Join(rd, record.GradingFile), vr.grading))
		}
		rel, err := filepath.Rel(dir, rd)
		require.NoError(t, err)
		v := record.RunVerdict(meta, vr.grading)
		it := record.SuiteItem{CaseID: vr.id, Repetition: 1, Status: record.ItemCompleted, RunDir: filepath.ToSlash(rel),
			ExitReason: vr.exit, RunVerdict: v}
		if vr.grading != nil {
			it.Passed, it.Score = vr.grading.Passed, vr.grading.Score
		}
		m.Items = append(m.Items, it)
		b.Add(i, it, meta, vr.grading)
		dirs[vr.id], want[vr.id] = rd, v
	}
	end := t0.Add(time.Hour)
	m.EndedAt = &end
	require.NoError(t, w.WriteJSON(filepath.Join(dir, record.SuiteFile), m))
	require.NoError(t, w.WriteJSON(filepath.Join(dir, record.SuiteSummaryFile), b.Build(m.Status, end)))
	return dir, dirs, want
}

// TestEverySurfaceShowsRecordsVerdict walks every surface that shows a
// run's verdict — the CLI's table, its JSON, its JUnit, the HTML suite and
// run pages, and a run comparison — for a run of each way a run can end,
// and checks each shows record.RunVerdict's word (the table in capitals
// for fail and error; JUnit as a failure, an error or a skip naming it).
func TestEverySurfaceShowsRecordsVerdict(t *testing.T) {
	dir, dirs, want := writeVerdictSuite(t)
	s, err := record.ReadSuite(dir)
	require.NoError(t, err)
	rep := newSuiteReport(&record.Suite{Dir: dir, Manifest: s.Manifest, Summary: s.Summary})
	type key struct{ surface, caseID string }
	got := map[key]string{}

	var table bytes.Buffer
	rep.writeText(&table)
	for _, line := range strings.Split(table.String(), "\n") {
		if f := strings.Fields(line); len(f) > 2 && want[f[0]] != "" && f[1] == "1" {
			got[key{"table", f[0]}] = strings.ToLower(f[2])
		}
	}

	js, err := json.Marshal(rep)
	require.NoError(t, err)
	var doc struct {
		Runs []struct {
			CaseID  string `json:"caseId"`
			Verdict string `json:"verdict"`
			Reason  string `json:"reason"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(js, &doc))
	reasons := map[string]string{}
	for _, r := range doc.Runs {
		got[key{"json", r.CaseID}] = r.Verdict
		reasons[r.CaseID] = r.Reason
	}

	for _, c := range junitOf(rep).Suites[0].Cases {
		v := string(record.VerdictPass)
		switch {
		case c.Failure != nil:
			v = c.Failure.Type
		case c.Error != nil:
			v = c.Error.Type
		case c.Skipped != nil:
			v = c.Skipped.Message
		}
		got[key{"junit", c.Classname}] = v
	}

	page, err := report.Suite(t.Context(), dir, report.Options{})
	require.NoError(t, err)
	for _, row := range page.Cases {
		for _, cell := range row.Runs {
			got[key{"html suite cell", row.CaseID}] = cell.Verdict
			// The cell says why as the JSON row does: one row model.
			assert.Contains(t, cell.Title, reasons[row.CaseID], "the suite page's cell of %s", row.CaseID)
		}
	}
	for id, rd := range dirs {
		rp, err := report.Run(rd, report.Options{})
		require.NoError(t, err)
		got[key{"html run page", id}] = rp.Verdict
		c, err := compare.Runs(t.Context(), rd, rd, compare.Options{})
		require.NoError(t, err)
		got[key{"compare A", id}], got[key{"compare B", id}] = c.Grading.Verdict.A, c.Grading.Verdict.B
	}

	expect := map[key]string{}
	for _, surface := range []string{"table", "json", "junit", "html suite cell", "html run page", "compare A", "compare B"} {
		for id, v := range want {
			expect[key{surface, id}] = string(v)
		}
	}
	if d := cmp.Diff(expect, got); d != "" {
		t.Errorf("verdicts by surface (-record +shown):\n%s", d)
	}
}
