package record

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/luxeval/lux/internal/digest"
)

// IdentityHash is the comparison identity of a run: the SHA-256 (see
// digest.Value) of the provenance that must match for two runs to be
// repetitions of the same measurement. Two runs with equal identity hashes
// ran the same case (caseHash), graded by the same assertions
// (assertionsHash, evaluatorConfigHash) from the same fixtures
// (fixturesHash), with the same driver config, answerer config, runtime
// (driver, commands by name, content hash and version — not where they
// were found; see RuntimeInfo.Identity), host, source (case path and
// git commit) and declared environment, against the same agent as it
// reported itself when ready (see IdentityDriver), within the same
// experiment.
//
// Left out, because they differ between repetitions by design: the run id,
// suite id, repetition, every time, usage and outcome, and the experiment
// candidate and subject (what an experiment varies on purpose).
//
// A run whose source repository was dirty with no working-tree hash
// recorded cannot prove what it ran: its identity includes its start time,
// so it matches no other run.
func IdentityHash(m *Metadata) string {
	p := m.Provenance
	var source any
	if p.Source != nil {
		src := *p.Source
		if src.Git != nil && src.Git.Dirty && src.Git.WorkingTreeHash == "" {
			source = struct {
				Source
				DirtySnapshotUnavailableForRun time.Time `json:"dirtySnapshotUnavailableForRun"`
			}{src, m.StartedAt}
		} else {
			source = src
		}
	}
	driver := IdentityDriver(m.Driver)
	var env any
	if len(p.Environment) > 0 {
		env = json.RawMessage(p.Environment)
	}
	h, err := digest.Value(map[string]any{
		"source":              source,
		"host":                p.Host,
		"runtime":             p.Runtime.Identity(),
		"environment":         env,
		"caseHash":            p.CaseHash,
		"assertionsHash":      p.AssertionsHash,
		"fixturesHash":        p.FixturesHash,
		"driverConfigHash":    p.DriverConfigHash,
		"answererConfigHash":  p.AnswererConfigHash,
		"evaluatorConfigHash": p.EvaluatorConfigHash,
		"experimentId":        p.ExperimentID,
		"driver":              map[string]any{"name": driver.Name, "ready": driver.Ready},
		"answerer":            m.Answerer.Name,
	})
	if err != nil {
		// Only an environment that is not valid JSON gets here; hash what is left.
		h, _ = digest.Value(map[string]any{"unhashable": err.Error(), "startedAt": m.StartedAt})
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

// IdentityDriver is the driver of a run as its identity sees it: the
// agent as it reported itself when ready, without the raw version string
// and the per-session detail (isSessionDetail: session and thread
// ids, pid, working directory). Detail reads as it would from run.json.
func IdentityDriver(d DriverInfo) DriverInfo {
	d.AgentVersionRaw = ""
	if len(d.Detail) > 0 {
		det := asRead(d.Detail)
		for k := range det {
			if isSessionDetail(k) {
				delete(det, k)
			}
		}
		if len(det) == 0 {
			det = nil
		}
		d.Detail = det
	}
	return d
}

// sessionDetailKeys are the keys of lux.Ready.Detail that describe one session
// rather than the agent: ids the CLI makes up per session, its process id
// and its working directory (the run's own workspace). They are recorded
// but never part of a run's identity, so two runs of one case stay
// repetitions of one measurement.
var sessionDetailKeys = []string{"sessionId", "threadId", "pid", "cwd"}

// isSessionDetail reports whether key is a per-session key of lux.Ready.Detail
// (session id, thread id, pid, cwd), which a run's identity leaves out.
func isSessionDetail(key string) bool { return slices.Contains(sessionDetailKeys, key) }
