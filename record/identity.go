package record

import (
	"encoding/json"
	"maps"
	"time"

	"github.com/luxeval/lux"
)

// IdentityHash is the comparison identity of a run: the SHA-256 (see
// lux.HashValue) of the provenance that must match for two runs to be
// repetitions of the same measurement. Two runs with equal identity hashes
// ran the same case (caseHash), graded by the same assertions
// (assertionsHash, evaluatorConfigHash) from the same fixtures
// (fixturesHash), with the same driver config, answerer config, runtime
// (driver, commands and their versions, capabilities, model), host, source
// (case path and git commit) and declared environment, against the same
// agent as it reported itself when ready (agent id, version, model; detail
// without per-session ids), within the same experiment.
//
// Left out, because they differ between repetitions by design: the run id,
// suite id, repetition, every time, usage and outcome, and the experiment
// candidate and subject (what an experiment varies on purpose).
//
// A run whose source repository was dirty with no working-tree hash
// recorded cannot prove what it ran: its identity includes its start time,
// so it matches no other run.
func IdentityHash(m *lux.RunMetadata) string {
	p := m.Provenance
	var source any
	if p.Source != nil {
		src := *p.Source
		if src.Git != nil && src.Git.Dirty && src.Git.WorkingTreeHash == "" {
			source = struct {
				lux.Source
				DirtySnapshotUnavailableForRun time.Time `json:"dirtySnapshotUnavailableForRun"`
			}{src, m.StartedAt}
		} else {
			source = src
		}
	}
	ready := m.Driver.Ready
	if len(ready.Detail) > 0 {
		d := asRead(ready.Detail)
		for _, k := range volatileDetail {
			delete(d, k)
		}
		if len(d) == 0 {
			d = nil
		}
		ready.Detail = d
	}
	var env any
	if len(p.Environment) > 0 {
		env = json.RawMessage(p.Environment)
	}
	h, err := lux.HashValue(map[string]any{
		"source":              source,
		"host":                p.Host,
		"runtime":             p.Runtime,
		"environment":         env,
		"caseHash":            p.CaseHash,
		"assertionsHash":      p.AssertionsHash,
		"fixturesHash":        p.FixturesHash,
		"driverConfigHash":    p.DriverConfigHash,
		"answererConfigHash":  p.AnswererConfigHash,
		"evaluatorConfigHash": p.EvaluatorConfigHash,
		"experimentId":        p.ExperimentID,
		"driver":              map[string]any{"name": m.Driver.Name, "ready": ready},
		"answerer":            m.Answerer.Name,
	})
	if err != nil {
		// Only an environment that is not valid JSON gets here; hash what is left.
		h, _ = lux.HashValue(map[string]any{"unhashable": err.Error(), "startedAt": m.StartedAt})
	}
	return h
}

// asRead returns detail as it reads back from run.json (numbers become
// float64, structs maps), so that a run's identity is the same computed
// from memory and from its record: an int64 beyond 2^53 read back is not
// the integer written.
func asRead(detail map[string]any) map[string]any {
	b, err := json.Marshal(detail)
	if err != nil {
		return maps.Clone(detail)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return maps.Clone(detail)
	}
	return out
}

// volatileDetail are ready-detail keys that differ on every run.
var volatileDetail = []string{"sessionId", "threadId", "pid"}
