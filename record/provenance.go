package record

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/sandbox"
)

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
	Sandbox *sandbox.Info `json:"sandbox,omitempty"`
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
	// Scripts identifies lux.Runtime.Scripts: Name and Path the script's
	// absolute path, SHA256 its content hash (empty when unreadable).
	Scripts      []CommandInfo    `json:"scripts,omitempty"`
	Capabilities []lux.Capability `json:"capabilities,omitempty"`
	Model        string           `json:"model,omitempty"`
	// Hooks are the lifecycle hooks around the run (see lux.Hook), part of
	// its identity.
	Hooks []HookIdentity `json:"hooks,omitempty"`
}

// HookIdentity is a lifecycle hook as part of a run's identity.
type HookIdentity struct {
	Name       string `json:"name"`
	Version    string `json:"version,omitempty"`
	ConfigHash string `json:"configHash"`
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
	// version.Line).
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
