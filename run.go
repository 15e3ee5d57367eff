package lux

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"
)

// SchemaVersion is the version of the run record files this module writes.
const SchemaVersion = 1

// Run is the evidence of one run, as assertions see it: the case as run,
// what the run recorded, the trajectory and the collected artifacts.
type Run struct {
	Case      *Case
	Metadata  *RunMetadata
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

// RunMetadata is run.json: how a run went, what it cost, and the
// provenance that decides what it can be compared with.
type RunMetadata struct {
	SchemaVersion int    `json:"schemaVersion"`
	LuxVersion    string `json:"luxVersion"`
	RunID         string `json:"runId"`
	CaseID        string `json:"caseId"` // canonical: repetitions share it
	SuiteID       string `json:"suiteId,omitempty"`
	Repetition    int    `json:"repetition,omitempty"` // 1-based within a suite; 0 outside one

	StartedAt    time.Time  `json:"startedAt"`
	AgentEndedAt *time.Time `json:"agentEndedAt,omitempty"`
	EndedAt      time.Time  `json:"endedAt"`

	ExitReason         ExitReason          `json:"exitReason"`
	Reason             string              `json:"reason,omitempty"` // why, when not done
	OperationalFailure *OperationalFailure `json:"operationalFailure,omitempty"`

	Driver   DriverInfo  `json:"driver"`
	Answerer RunAnswerer `json:"answerer"`

	Usage           Usage           `json:"usage"`
	InterruptCounts InterruptCounts `json:"interruptCounts"`
	ToolCalls       ToolOutcomes    `json:"toolCalls"`
	Artifacts       ArtifactStats   `json:"artifacts"`
	Phases          PhaseDurations  `json:"phaseDurationMs"`
	StderrTail      string          `json:"stderrTail,omitempty"`

	Provenance Provenance `json:"provenance"`

	// Attempts lists every attempt at the run when retries were allowed
	// (Options.Retries): each attempt's outcome and classification, the
	// earlier ones' records kept under attempts/<n>/ of the run's
	// directory. The run's own outcome is the last attempt's. Nil when
	// retries were not allowed.
	Attempts []Attempt `json:"attempts,omitempty"`

	// Evidence fingerprints the evidence as the harness recorded it, so
	// that a record changed afterwards (or behind the harness's back while
	// the run went on) is told apart: Regrade refuses to grade one. Nil in
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

// Attempt is one attempt at a run (see RunMetadata.Attempts).
type Attempt struct {
	Attempt int `json:"attempt"` // 1-based
	// Dir is where the attempt's record is kept, relative to the run's
	// directory ("attempts/1"); empty for the last, the run itself.
	Dir        string     `json:"dir,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	EndedAt    time.Time  `json:"endedAt"`
	ExitReason ExitReason `json:"exitReason"`
	Reason     string     `json:"reason,omitempty"`
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
	// ArtifactsHash is HashValue of the artifact list of artifacts.json.
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
func (m *RunMetadata) Duration() time.Duration { return m.EndedAt.Sub(m.StartedAt) }

// DriverInfo is the driver as the run saw it: its name and what it reported when ready.
type DriverInfo struct {
	Name string `json:"name"`
	Ready
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
// trace, timeout, cancel, collection or close; an incomplete grading's
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
func (c *InterruptCounts) Add(k InterruptKind) {
	switch k {
	case Ask:
		c.Ask++
	case Approve:
		c.Approve++
	default:
		c.Custom++
	}
}

// ToolOutcomes summarises tool calls correlated with their results.
// Reported >= Total and Total = Succeeded + Failed + Unresolved.
type ToolOutcomes struct {
	Reported         int `json:"reported"`   // tool-call events
	Total            int `json:"total"`      // distinct calls
	Succeeded        int `json:"succeeded"`  // with a non-error result
	Failed           int `json:"failed"`     // with an error result
	Unresolved       int `json:"unresolved"` // no result seen
	UnmatchedResults int `json:"unmatchedResults"`
	Malformed        int `json:"malformed"`
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

// Provenance is everything that decides whether two runs measure the same
// thing. Two runs are comparable only where these match.
type Provenance struct {
	Source  *Source     `json:"source,omitempty"`
	Host    Host        `json:"host"`
	Runtime RuntimeInfo `json:"runtime"`
	// Environment is the user's declaration of where the agent ran (a
	// container image, a machine class, ...), recorded verbatim.
	Environment json.RawMessage `json:"environment,omitempty"`

	CaseHash            string `json:"caseHash"`
	AssertionsHash      string `json:"assertionsHash"`
	FixturesHash        string `json:"fixturesHash,omitempty"`
	DriverConfigHash    string `json:"driverConfigHash"`
	AnswererConfigHash  string `json:"answererConfigHash,omitempty"`
	EvaluatorConfigHash string `json:"evaluatorConfigHash"`
	// DriverChosenBy says what chose the driver (see orchestrator.Choose):
	// "case", "default", "case+default" or "override" — an override
	// replaced the driver case.json names. Not part of the run's identity,
	// which holds what ran, not how it was chosen.
	DriverChosenBy string `json:"driverChosenBy,omitempty"`

	ExperimentID string `json:"experimentId,omitempty"`
	CandidateID  string `json:"candidateId,omitempty"`
	SubjectHash  string `json:"subjectHash,omitempty"`

	// Sandbox is how the agent was confined (see package sandbox); nil in
	// records made before sandboxes.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
}

// SandboxInfo is the sandbox an agent ran in, as the harness applied it.
type SandboxInfo struct {
	// Level is the level in force: "none", "limits", "landlock" or
	// "landlock+netns".
	Level string `json:"level"`
	// Requested is the level asked for; empty for the default (the
	// strongest available).
	Requested string `json:"requested,omitempty"`
	// Refused lists what was not given, each with its reason (what the
	// kernel refused, a weaker level chosen).
	Refused []string `json:"refused,omitempty"`
	// LandlockABI is the Landlock ABI version in force; 0 without Landlock.
	LandlockABI int `json:"landlockABI,omitempty"`
	// Limits are the resource limits in force; ProcessLimit is how the
	// process limit is enforced ("pids-cgroup" or "rlimit").
	Limits       *SandboxLimits `json:"limits,omitempty"`
	ProcessLimit string         `json:"processLimit,omitempty"`
	// MemoryLimit is how the memory limit is enforced: "memory-cgroup"
	// (the agent's whole tree) or "rlimit" (RLIMIT_DATA, each process).
	MemoryLimit string `json:"memoryLimit,omitempty"`
	// ConnectPorts are the TCP ports the agent could connect to.
	ConnectPorts []int `json:"connectPorts,omitempty"`
	// AgentSandbox says how the driver set the agent's own sandbox
	// because this one confines it ("codex: --sandbox danger-full-access").
	AgentSandbox []string `json:"agentSandbox,omitempty"`
	// Network is the agent's network at level landlock+netns; Reachable
	// what it could reach there (forwarded endpoints, hosts through the
	// harness's proxy), Denied what that proxy refused it.
	Network   string   `json:"network,omitempty"`
	Reachable []string `json:"reachable,omitempty"`
	Denied    []string `json:"denied,omitempty"`
}

// SandboxLimits are an agent's resource limits; a negative value is none.
type SandboxLimits struct {
	Processes   int64 `json:"processes,omitempty"`
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	FileBytes   int64 `json:"fileBytes,omitempty"`
	CPUSeconds  int64 `json:"cpuSeconds,omitempty"`
}

// Source is where the case came from.
type Source struct {
	// CasePath is the case file relative to the root of the git repository
	// holding it, or, outside a repository, relative to the directory
	// holding it (its file name): where a directory of cases sits on disk
	// is not part of what a run measures. case.json keeps the path as given.
	CasePath string   `json:"casePath,omitempty"`
	Git      *GitInfo `json:"git,omitempty"`
}

// GitInfo is the state of the repository holding the case.
type GitInfo struct {
	Commit          string `json:"commit"`
	Dirty           bool   `json:"dirty"`
	WorkingTreeHash string `json:"workingTreeHash,omitempty"`
}

// Host is the machine the harness ran on.
type Host struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"goVersion"`
}

// RuntimeInfo is the driver's declared runtime as the run used it.
type RuntimeInfo struct {
	Driver   string        `json:"driver"`
	Commands []CommandInfo `json:"commands,omitempty"`
	// Scripts identifies Runtime.Scripts: Name and Path the script's
	// absolute path, SHA256 its content hash (empty when unreadable).
	Scripts      []CommandInfo `json:"scripts,omitempty"`
	Capabilities []Capability  `json:"capabilities,omitempty"`
	Model        string        `json:"model,omitempty"`
	// Hooks are the lifecycle hooks around the run (see Hook), part of its
	// identity.
	Hooks []HookIdentity `json:"hooks,omitempty"`
}

// CommandInfo is an executable a driver launches, resolved on this
// machine. A run's identity holds what the command is (its name as
// configured, its content hash, its version), not where it was found:
// Path and RawVersion are recorded but left out of the identity.
type CommandInfo struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"` // absolute, symlinks resolved; empty when not found
	// SHA256 is the hash of the executable file's content, for every
	// command but a known agent CLI whose version identifies it: editing
	// an agent script changes it. Empty when the file could not be read or
	// is larger than the hashing limit (see driver.MaxHashBytes).
	SHA256 string `json:"sha256,omitempty"`
	// Version is the release number a known agent CLI printed for
	// --version, normalized ("2.1.328"); empty for any other command,
	// which is never run to ask.
	Version string `json:"version,omitempty"`
	// RawVersion is the line the CLI printed ("2.1.328 (Claude Code)"),
	// kept only when it reads as a version line and nothing else (see
	// VersionLine).
	RawVersion string `json:"rawVersion,omitempty"`
}

// VersionText is the version as the command printed it: RawVersion when
// kept, else Version.
func (c CommandInfo) VersionText() string {
	if c.RawVersion != "" {
		return c.RawVersion
	}
	return c.Version
}

// Identity returns c as a run's identity sees it: without the path it was
// found at and the raw version line, and a command named by a path
// ("./agent.sh", "/opt/agent/run") by its file name only, since its
// content hash says what it is wherever it sits.
func (c CommandInfo) Identity() CommandInfo {
	c.Path, c.RawVersion = "", ""
	if strings.ContainsRune(c.Name, '/') || filepath.IsAbs(c.Name) {
		c.Name = filepath.Base(c.Name)
	}
	return c
}

// Identity returns r as a run's identity sees it: each command and script
// by its Identity.
func (r RuntimeInfo) Identity() RuntimeInfo {
	r.Commands = identities(r.Commands)
	r.Scripts = identities(r.Scripts)
	return r
}

func identities(cs []CommandInfo) []CommandInfo {
	if cs == nil {
		return nil
	}
	out := make([]CommandInfo, len(cs))
	for i, c := range cs {
		out[i] = c.Identity()
	}
	return out
}

// GradingReport is grading.json: each assertion's outcome and the case
// verdict. Passed and Score are nil when grading is incomplete (an
// assertion could not be evaluated): no verdict, never a silent pass or fail.
type GradingReport struct {
	SchemaVersion int                `json:"schemaVersion"`
	Passed        *bool              `json:"casePassed"`
	Score         *float64           `json:"caseScore"`
	Assertions    []AssertionOutcome `json:"assertions"`
	Incomplete    *Incomplete        `json:"incomplete,omitempty"`
}

// Verdict returns "pass", "fail" or "ungraded".
func (g *GradingReport) Verdict() string {
	switch {
	case g == nil || g.Passed == nil:
		return "ungraded"
	case *g.Passed:
		return "pass"
	default:
		return "fail"
	}
}

// Incomplete says why a grading report has no verdict, or why the run's
// verdict is a failure regardless of its assertions.
type Incomplete struct {
	ExitReason ExitReason `json:"exitReason"`
	Phase      Phase      `json:"phase"` // run, collection or grading
	Reason     string     `json:"reason,omitempty"`
}

// AssertionOutcome is one assertion's result within a grading report.
type AssertionOutcome struct {
	ID         string      `json:"id"`
	Type       string      `json:"type"`
	Name       string      `json:"name"`
	Passed     bool        `json:"passed"`
	Score      float64     `json:"score"`
	Weight     float64     `json:"weight"`
	Threshold  float64     `json:"threshold"`
	DurationMs int64       `json:"durationMs"`
	Comment    string      `json:"comment,omitempty"`
	Detail     any         `json:"detail,omitempty"`
	Error      string      `json:"error,omitempty"` // could not grade: no verdict
	Usage      *ModelUsage `json:"usage,omitempty"` // what its judge spent
}
