package lux

import "time"

// Run is the evidence of one run, as assertions see it: the case as run,
// what the run recorded, the trajectory and the collected artifacts.
type Run struct {
	Case *Case
	// Repetition is the run's repetition of its case within a suite,
	// 1-based; 0 outside one.
	Repetition int
	// Outcome is how the run ended, from its run.json; nil when the run
	// has none.
	Outcome   *Outcome
	Events    []Event
	Artifacts []Artifact
	// Dir is the run directory; Workspace is the directory artifact paths
	// are relative to (the agent's working directory, <Dir>/artifacts).
	Dir       string
	Workspace string
	// Scratch is a directory grading may write into, removed once the run
	// is graded: command assertions copy the workspace here and run on the
	// copy, so that grading never changes the evidence it grades. Empty
	// when the grader gives none; such an assertion then makes its own
	// under the system's temporary directory.
	Scratch string
}

// Artifact is a file the agent left in its workspace.
type Artifact struct {
	Path        string `json:"path"` // slash-separated, relative to the workspace
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	// NotHashed says why SHA256 is empty: the file is over a hashing cap,
	// or collection ran out of time ("over the 268435456-byte per-file
	// hashing cap", say). Size is still the file's size.
	NotHashed string `json:"notHashed,omitempty"`
}

// Outcome is how a run ended, as assertions read it: a summary of the
// run's record (package record's Metadata, its run.json).
type Outcome struct {
	ExitReason ExitReason
	Reason     string // why, when not done
	// FailedPhase names the phase of the harness that failed the run
	// ("collection": its artifacts could not be collected, say; see
	// record.Phase); empty when the harness did not fail it.
	FailedPhase string

	StartedAt time.Time
	// AgentEndedAt is when the agent's part of the run ended (before its
	// artifacts were collected and it was graded); zero when not recorded.
	AgentEndedAt time.Time
	EndedAt      time.Time

	// Usage is what the run spent: the agent's tokens and cost, when its
	// driver reported them, and the answerer's.
	Usage Usage
	// ArtifactCount and ArtifactBytes count the collected artifacts.
	ArtifactCount int
	ArtifactBytes int64
}
