package experiment

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An arm runs its profile's driver, which is what the ledger identifies:
// a case that names the same driver with a command of its own is refused,
// naming the case, the profile and the fix, before anything runs (the
// case's command used to run in every unit while the ledger named the
// profile's).
func TestCaseDriverConfigConflictingWithTheProfileIsRefused(t *testing.T) {
	f := newFixture(t, "write a.txt alpha\n")
	f.write(t, "old-agent.sh", "#!/bin/sh\nexit 3\n")
	for _, id := range []string{"own-a", "own-b"} {
		f.write(t, "cases/validation/"+id+".case.json", `{"id": "`+id+`", "prompt": "do `+id+`",
		  "driver": {"name": "subprocess", "config": {"command": "../../old-agent.sh"}},
		  "assertions": [{"type": "file-contains", "path": "a.txt", "text": "alpha"}]}`)
	}
	c := f.campaign(t)
	runs := filepath.Join(f.dir, ".lux-runs")
	_, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: runs})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `case "own-a"`)
	assert.Contains(t, err.Error(), "profile default")
	assert.Contains(t, err.Error(), "leave the driver to the profiles")
}
