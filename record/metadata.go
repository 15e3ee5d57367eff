package record

import (
	"time"

	"github.com/luxeval/lux"
)

// SchemaVersion is the version of the run record files this module writes.
const SchemaVersion = 1

// Metadata is run.json: how a run went, what it cost, and the
// provenance that decides what it can be compared with.
type Metadata struct {
	SchemaVersion int    `json:"schemaVersion"`
	LuxVersion    string `json:"luxVersion"`
	RunID         string `json:"runId"`
	CaseID        string `json:"caseId"` // canonical: repetitions share it
	SuiteID       string `json:"suiteId,omitempty"`
	Repetition    int    `json:"repetition,omitempty"` // 1-based within a suite; 0 outside one

	StartedAt    time.Time  `json:"startedAt"`
	AgentEndedAt *time.Time `json:"agentEndedAt,omitempty"`
	EndedAt      time.Time  `json:"endedAt"`

	ExitReason         lux.ExitReason      `json:"exitReason"`
	Reason             string              `json:"reason,omitempty"` // why, when not done
	OperationalFailure *OperationalFailure `json:"operationalFailure,omitempty"`

	Driver   DriverInfo  `json:"driver"`
	Answerer RunAnswerer `json:"answerer"`

	Usage           lux.Usage       `json:"usage"`
	InterruptCounts InterruptCounts `json:"interruptCounts"`
	ToolCalls       ToolOutcomes    `json:"toolCalls"`
	Artifacts       ArtifactStats   `json:"artifacts"`
	Phases          PhaseDurations  `json:"phaseDurationMs"`
	StderrTail      string          `json:"stderrTail,omitempty"`

	Provenance Provenance `json:"provenance"`

	// Attempts lists every attempt at the run when retries were allowed
	// (orchestrator.Options.Retries): each attempt's outcome and classification, the
	// earlier ones' records kept under attempts/<n>/ of the run's
	// directory. The run's own outcome is the last attempt's. Nil when
	// retries were not allowed.
	Attempts []Attempt `json:"attempts,omitempty"`

	// Evidence fingerprints the evidence as the harness recorded it, so
	// that a record changed afterwards (or behind the harness's back while
	// the run went on) is told apart: orchestrator.Regrade refuses to grade one. Nil in
	// records made before it existed.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// FailureClass says whose a failed attempt's failure was.
type FailureClass string

// The classes of failure.
const (
	// FailureInfrastructure: the run failed before the agent did anything,
	// for a cause outside the agent: the workspace could not be made, the
	// CLI could not start or crashed at once, the model API answered
	// overloaded, rate limited or 5xx, or could not be reached. Retried.
	FailureInfrastructure FailureClass = "infrastructure"
	// FailureAgent: any other failure. Never retried.
	FailureAgent FailureClass = "agent"
)

// Attempt is one attempt at a run (see Metadata.Attempts).
type Attempt struct {
	Attempt int `json:"attempt"` // 1-based
	// Dir is where the attempt's record is kept, relative to the run's
	// directory ("attempts/1"); empty for the last, the run itself.
	Dir        string         `json:"dir,omitempty"`
	StartedAt  time.Time      `json:"startedAt"`
	EndedAt    time.Time      `json:"endedAt"`
	ExitReason lux.ExitReason `json:"exitReason"`
	Reason     string         `json:"reason,omitempty"`
	// Phase is the operational failure's phase, when the harness ended it.
	Phase Phase `json:"phase,omitempty"`
	// Failure classifies a failed attempt; empty when it ended done.
	Failure FailureClass `json:"failure,omitempty"`
	// Cause names what the classification rests on: "setup", "start",
	// "crash", "overloaded", "rate-limited", "server-error",
	// "connection"; for an agent failure, "agent-error" or
	// "agent-worked" (it had done something before it failed).
	Cause string `json:"cause,omitempty"`
	// Retried is true when another attempt followed, BackoffMs the wait
	// before it.
	Retried   bool  `json:"retried"`
	BackoffMs int64 `json:"backoffMs,omitempty"`
}

// Evidence fingerprints a run's evidence: events.jsonl as the harness
// wrote it, and the artifact list (whose entries hold each file's hash).
type Evidence struct {
	EventsSHA256 string `json:"eventsSha256"`
	EventsBytes  int64  `json:"eventsBytes"`
	// ArtifactsHash is the SHA-256 of the canonical JSON (sorted keys) of
	// the artifact list of artifacts.json.
	ArtifactsHash string `json:"artifactsHash"`
	// WorkspaceSHA256 fingerprints the whole recorded workspace as a tree:
	// every entry under artifacts/, listed or not in artifacts.json (dot
	// directories and node_modules included), by path, kind, permission
	// bits, size and link target, in path order; WorkspaceEntries counts
	// them. A file added, removed, resized or retyped anywhere changes it.
	// Empty in records made before it existed.
	WorkspaceSHA256  string `json:"workspaceSha256,omitempty"`
	WorkspaceEntries int    `json:"workspaceEntries,omitempty"`
}

// Duration is the time from start to end of the run.
func (m *Metadata) Duration() time.Duration { return m.EndedAt.Sub(m.StartedAt) }

// DriverInfo is the driver as the run saw it: its name and what it reported when ready.
type DriverInfo struct {
	Name string `json:"name"`
	lux.Ready
}

// RunAnswerer names the answerer of a run ("" when the case has none).
type RunAnswerer struct {
	Name string `json:"name,omitempty"`
}

// OperationalFailure says which phase of the harness failed, as opposed to
// the agent failing its task.
type OperationalFailure struct {
	Phase Phase `json:"phase"`
	// Reason says why; when a later phase failed too (closing the
	// session after the agent failed, say), "; then PHASE: why" follows.
	Reason string `json:"reason"`
}

// Phase names a part of a run: the one in which the harness failed it
// (OperationalFailure.Phase), or the one that left a grading without a
// verdict (Incomplete.Phase).
type Phase string

// The phases. An operational failure happens in setup, answerer, driver,
// trace, timeout, cancel, collection, close or hook; an incomplete grading's
// phase is run, collection or grading.
const (
	PhaseSetup      Phase = "setup"      // the record or the workspace could not be made, or the fixtures staged
	PhaseAnswerer   Phase = "answerer"   // the answerer failed to prepare or to answer, or there was none
	PhaseDriver     Phase = "driver"     // the driver failed to start or to go on, or broke its contract
	PhaseTrace      Phase = "trace"      // the event log reached its cap
	PhaseTimeout    Phase = "timeout"    // the run's wall-clock limit passed
	PhaseCancel     Phase = "cancel"     // the run's context was cancelled
	PhaseCollection Phase = "collection" // the agent could not be stopped or its artifacts collected
	PhaseClose      Phase = "close"      // the session or the answerer failed to close
	PhaseRun        Phase = "run"        // the run ended before there was evidence to grade
	PhaseGrading    Phase = "grading"    // an assertion could not be evaluated
	// PhaseHook: a lifecycle hook (lux.Hook) failed: a case-level setup
	// (the run never started), or a cleanup after the run (noted on its
	// record).
	PhaseHook Phase = "hook"
)

// InterruptCounts counts interrupts by kind.
type InterruptCounts struct {
	Ask     int `json:"ask"`
	Approve int `json:"approve"`
	Custom  int `json:"custom"`
}

// Total is the number of interrupts of any kind.
func (c InterruptCounts) Total() int { return c.Ask + c.Approve + c.Custom }

// Add counts one interrupt of kind k.
func (c *InterruptCounts) Add(k lux.InterruptKind) {
	switch k {
	case lux.Ask:
		c.Ask++
	case lux.Approve:
		c.Approve++
	default:
		c.Custom++
	}
}

// ArtifactStats counts the collected artifacts.
type ArtifactStats struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
}

// PhaseDurations are milliseconds spent in each phase of the run.
type PhaseDurations struct {
	Agent   int64 `json:"agent"`
	Collect int64 `json:"collect"`
	Grading int64 `json:"grading"`
}

// Outcome is how the run ended, as assertions read it (lux.Run's
// Outcome); nil when m is.
func (m *Metadata) Outcome() *lux.Outcome {
	if m == nil {
		return nil
	}
	o := &lux.Outcome{
		ExitReason: m.ExitReason, Reason: m.Reason,
		StartedAt: m.StartedAt, EndedAt: m.EndedAt,
		Usage:         m.Usage,
		ArtifactCount: m.Artifacts.Count, ArtifactBytes: m.Artifacts.Bytes,
	}
	if m.AgentEndedAt != nil {
		o.AgentEndedAt = *m.AgentEndedAt
	}
	if m.OperationalFailure != nil {
		o.FailedPhase = string(m.OperationalFailure.Phase)
	}
	return o
}
