package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// benchUnit is a unit with the metrics a real run records.
func benchUnit(candidate, profile string, i, rep int) *Unit {
	passed := i%3 != 0
	score := 0.5
	id := fmt.Sprintf("case-%04d", i)
	k := unitKey{candidate, "h-" + candidate, profile, SplitValidation, id, rep}
	metrics := map[string]float64{"durationMs": 1200, "agent.total": float64(1000 + i%50), "interrupts.ask": 0, "toolCalls": 4, "cost.usd": 0.01}
	return &Unit{SchemaVersion: 1, ID: k.id(), Candidate: candidate, CandidateHash: k.CandidateHash, Profile: profile, Split: SplitValidation,
		CaseID: id, Cluster: fmt.Sprintf("c%03d", i/4), Repetition: rep, RunDir: id + "/subprocess/2025-01-01T00-00-00-000Z",
		Sample: record.Sample{CaseID: id, Repetition: rep, Cluster: fmt.Sprintf("c%03d", i/4), ExitReason: lux.ExitDone,
			Passed: &passed, Score: &score, IdentityHash: "ident-" + id + "-" + profile, Metrics: metrics},
		Tokens: 1000, FinishedAt: time.Unix(0, 0).UTC()}
}

// BenchmarkLedgerPerUnit is the ledger's work per unit beyond the run:
// the attempt line, the unit file (atomic) and its journal line. The goal
// is under 2 ms. BenchmarkTreeCheck is the tamper check that comes on top
// (the candidate tree hashed before and after the run).
func BenchmarkLedgerPerUnit(b *testing.B) { benchPerUnit(b, false) }

// BenchmarkTreeCheck is the per-unit tamper check: a tree of 20 files
// hashed twice.
func BenchmarkTreeCheck(b *testing.B) { benchPerUnit(b, true) }

func benchPerUnit(b *testing.B, treeOnly bool) {
	dir := b.TempDir()
	for _, sub := range []string{UnitsDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	tree := filepath.Join(dir, "tree")
	for i := range 20 {
		p := filepath.Join(tree, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.md", i))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte("some instructions for the agent\n"), 0o644)
	}
	w, err := openJournal(dir, -1, false)
	if err != nil {
		b.Fatal(err)
	}
	defer w.close()
	s := &state{dir: dir, journal: w, sub: &subject{root: tree}}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if treeOnly {
			for range 2 {
				if _, err := s.sub.hash(tree); err != nil {
					b.Fatal(err)
				}
			}
			continue
		}
		u := benchUnit(BaselineID, "default", i, 1)
		if err := w.append(journalEntry{Kind: "attempt", Unit: u.ID}); err != nil {
			b.Fatal(err)
		}
		if err := s.record(u); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/unit")
}

// writeBenchLedger writes a ledger of n finished units.
func writeBenchLedger(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, UnitsDir), 0o700); err != nil {
		b.Fatal(err)
	}
	w, err := openJournal(dir, -1, false)
	if err != nil {
		b.Fatal(err)
	}
	s := &state{dir: dir, journal: w}
	for i := range n {
		if err := s.record(benchUnit(fmt.Sprintf("cand-%d", i%10), "default", i/10, 1)); err != nil {
			b.Fatal(err)
		}
	}
	w.close()
	return dir
}

// BenchmarkResumeScan is what Resume reads of a ledger of 10,000 units:
// the journal, every unit file checked against its hash, and the adoption
// pass over the units directory. The goal is under 1 s; it also reports
// the memory kept per finished unit (its summary).
func BenchmarkResumeScan(b *testing.B) {
	dir := writeBenchLedger(b, 10_000)
	b.ResetTimer()
	var perUnit float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		j, err := readJournal(dir)
		if err != nil {
			b.Fatal(err)
		}
		units, err := readUnits(dir, j)
		if err != nil || len(units) != 10_000 {
			b.Fatal(err, len(units))
		}
		w, err := openJournal(dir, j.torn, false)
		if err != nil {
			b.Fatal(err)
		}
		if err := adoptUnits(dir, j, w); err != nil {
			b.Fatal(err)
		}
		w.close()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perUnit = float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / 10_000
		runtime.KeepAlive(units)
	}
	b.ReportMetric(perUnit, "heapB/unit")
}

// BenchmarkEffects computes effects and the decision for 10 candidates × 3
// profiles × 1,000 cases (30,000 units) with a relative pass-rate
// constraint. The goal is under 1 s.
func BenchmarkEffects(b *testing.B) {
	var units []*Unit
	var cands []CandidateRef
	profiles := map[string]Profile{}
	for p := range 3 {
		profiles[fmt.Sprintf("p%d", p)] = Profile{Driver: &lux.PluginRef{Name: "x"}}
	}
	for c := range 10 {
		id := BaselineID
		if c > 0 {
			id = fmt.Sprintf("cand-%d", c)
		}
		cands = append(cands, CandidateRef{ID: id, Bytes: int64(100 + c)})
		for p := range 3 {
			for i := range 1000 {
				units = append(units, benchUnit(id, fmt.Sprintf("p%d", p), i, 1))
			}
		}
	}
	camp := Campaign{ID: "bench", Profiles: profiles, Splits: Splits{Validation: &Selector{Patterns: []string{"x"}}},
		Objectives: Objectives{Constraints: []Constraint{{Metric: MetricPassRate, RelativeTo: BaselineID, Min: num(0), Confidence: &Confidence{}}}}}
	camp = camp.withDefaults()
	ev := newEvidence(b.TempDir(), units)
	b.ResetTimer()
	for b.Loop() {
		res, err := evaluate(b.Context(), &camp, cands, ev, []string{SplitValidation}, nil)
		if err != nil || len(res.Effects) != 9*3*len(effectMetrics(&camp)) {
			b.Fatal(err)
		}
	}
}
