package lux

import (
	"context"
	"io"
	"slices"
)

// Capability is something a driver's agent can do that a case may need.
type Capability string

// The capabilities built-in drivers declare. A driver may declare others.
const (
	CanAsk       Capability = "ask"         // puts questions to the user mid-run and continues with the answer
	CanApprove   Capability = "approve"     // asks the user to approve actions mid-run
	CanCustom    Capability = "custom"      // driver-defined interrupts
	ReportsUsage Capability = "usage"       // reports the agent's token usage
	ReportsCost  Capability = "cost"        // reports the agent's cost in USD
	ReportsTools Capability = "tool-events" // reports tool calls and their results
)

// Runtime is what a configured driver will launch and what it can do. It is
// recorded in every run's provenance and checked against a case's Requires
// before anything starts.
type Runtime struct {
	Commands     []string     // executables it launches, as configured (name or path)
	Capabilities []Capability // what it declares it can do
	Model        string       // the model it asks for, when it knows
	// InstallHint tells a user how to install the commands when they are
	// missing, e.g. "npm install -g @anthropic-ai/claude-code".
	InstallHint string
	// Versioned lists the Commands that are agent CLIs known to print
	// their version for --version (claude, codex, cursor-agent). Only they
	// are asked, and only in a sandbox (see driver.ProbeVersion); every
	// other command (a lux-jsonl agent, a script) is never run to learn
	// its version: it is identified by its content hash.
	Versioned []string
	// Scripts lists files the commands run that are not themselves the
	// executable — the agent.py of "python3 /opt/agent/agent.py" — as
	// absolute paths. Each is identified by the hash of its content (see
	// driver.Scripts), so editing the script changes every run's
	// identity, as editing an executable agent does.
	Scripts []string
	// SearchPath is the PATH (a list of directories) a bare command name
	// is looked up on before the harness's own: the agent's PATH, when
	// the driver's config sets one and the driver looks its command up
	// there (see driver.FindCommand). The orchestrator finds the command
	// the same way to record the executable that runs.
	SearchPath string
}

// Has reports whether the runtime declares capability c.
func (r Runtime) Has(c Capability) bool { return slices.Contains(r.Capabilities, c) }

// Missing returns the capabilities in required that r does not declare, in order.
func (r Runtime) Missing(required []Capability) []Capability {
	var out []Capability
	for _, c := range required {
		if !r.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// DriverExperiment is a driver's support for controlled experiments.
type DriverExperiment struct {
	// Version of the driver's behaviour; never blank.
	Version string
	// Prepare turns an ordinary config into the controlled one (for
	// example: the host environment is not inherited).
	Prepare func(DriverConfig) (DriverConfig, error)
	// Identity describes what shapes the agent's behaviour (CLI versions,
	// hashes of settings and plugins) so arms with different agents are
	// never pooled. It must be JSON-encodable.
	Identity func(ctx context.Context, cfg DriverConfig, root string) (any, error)
}

// StartInfo is what a driver gets to start one run.
type StartInfo struct {
	CaseID string
	Prompt string
	// RunDir is a scratch directory of the run's own, for the driver and
	// the agent (LUX_RUN_DIR): empty at the start, outside the record and
	// removed after the run. The record is never where the agent can be
	// told to write.
	RunDir    string
	Workspace string // the agent's working directory, fixtures already staged; it joins the record as artifacts/ once the agent is stopped
	// CaseDir is the directory a command path in the driver's config is
	// relative to (see driver.CommandPath): the directory of the case file
	// when the case names its driver; "" (the harness's working directory)
	// for an inline case or a driver the harness supplies.
	CaseDir string
	// TempDir is a directory for the driver's own files (such as the
	// prompt file it hands the agent), outside the workspace and the
	// record: empty at the start and removed after the run. The
	// orchestrator puts it under the runs root's live area, so that what
	// a killed harness left there is removed when the suite is resumed.
	// Empty: use the system's temporary directory.
	TempDir string
	// Stderr receives the agent's standard error; the harness keeps it in
	// the record. Never nil when the orchestrator starts a driver.
	Stderr io.Writer
}

// AnswererInfo is what an answerer knows about the run it answers for.
type AnswererInfo struct {
	CaseID  string
	Prompt  string
	Persona string
	RunDir  string
}

// Exchange is one interrupt and the answer it got.
type Exchange struct {
	Interrupt Interrupt `json:"interrupt"`
	Answer    Answer    `json:"answer"`
}

// Result is an assertion's verdict on a run.
type Result struct {
	Passed  bool
	Score   float64 // in [0,1]
	Comment string
	Detail  any         // evidence: what was found, JSON-encodable
	Usage   *ModelUsage // what a model-graded assertion's judge spent
}
