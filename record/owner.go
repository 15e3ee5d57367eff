package record

import (
	"os"

	"github.com/luxeval/lux/internal/proc"
)

// SuiteInterrupted is the status of a suite whose manifest still says
// running although the process that ran it is gone (it was killed, or
// its machine stopped): nothing will finish it. It is never written;
// [SuiteManifest.LiveStatus] derives it when the record is read.
const SuiteInterrupted SuiteStatus = "interrupted"

// Owner is the process that writes a record while it runs: enough to tell,
// later and on the same host, whether that process is still alive.
type Owner struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Start tells the process apart from a later one with the same pid
	// (on Linux, the boot id and its start time); empty where the system
	// does not say.
	Start string `json:"start,omitempty"`
}

// CurrentOwner is the Owner for this process.
func CurrentOwner() *Owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return &Owner{Host: host, PID: pid, Start: proc.StartMarker(pid)}
}

// Alive reports whether the owner may still be running: false only when
// it ran on this host and that process is gone (or its pid now belongs to
// another process). An owner on another host, or none, may be alive.
func (o *Owner) Alive() bool {
	if o == nil || o.PID <= 0 {
		return true
	}
	if host, err := os.Hostname(); err != nil || host != o.Host {
		return true
	}
	return proc.SameProcess(o.PID, o.Start)
}

// LiveStatus is the suite's status as it stands now: Status, except that a
// suite recorded as running whose owner is gone is SuiteInterrupted.
func (m *SuiteManifest) LiveStatus() SuiteStatus {
	if m.Status == SuiteRunning && m.Owner != nil && !m.Owner.Alive() {
		return SuiteInterrupted
	}
	return m.Status
}
