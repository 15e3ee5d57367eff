package record_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/record"
)

func TestLiveStatusSaysInterruptedWhenTheOwnerIsGone(t *testing.T) {
	// A process that has ended and been reaped: its pid is no one's.
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := &record.Owner{Host: record.CurrentOwner().Host, PID: cmd.Process.Pid}

	self := record.CurrentOwner()
	recycled := *self
	recycled.Start = "another-boot/1" // the pid is alive but belongs to another process

	for _, tc := range []struct {
		name   string
		status record.SuiteStatus
		owner  *record.Owner
		want   record.SuiteStatus
	}{
		{"running, owner alive", record.SuiteRunning, self, record.SuiteRunning},
		{"running, owner dead", record.SuiteRunning, dead, record.SuiteInterrupted},
		{"running, pid recycled", record.SuiteRunning, &recycled, record.SuiteInterrupted},
		{"running, owner on another host", record.SuiteRunning, &record.Owner{Host: "elsewhere.invalid", PID: cmd.Process.Pid}, record.SuiteRunning},
		{"running, no owner recorded", record.SuiteRunning, nil, record.SuiteRunning},
		{"finished, owner dead", record.SuitePassed, dead, record.SuitePassed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m := &record.SuiteManifest{SuiteID: "s", Status: tc.status, Owner: tc.owner, Items: []record.SuiteItem{}}
			require.NoError(t, record.Writer{}.WriteJSON(filepath.Join(dir, record.SuiteFile), m))
			s, err := record.ReadSuite(dir)
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Manifest.LiveStatus())
		})
	}
}
