package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// sandboxOf reads the sandbox of the only run under root.
func sandboxOf(t *testing.T, root string) *lux.SandboxInfo {
	t.Helper()
	var found []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == record.MetadataFile {
			found = append(found, p)
		}
		return err
	}))
	require.Len(t, found, 1)
	b, err := os.ReadFile(found[0])
	require.NoError(t, err)
	var m lux.RunMetadata
	require.NoError(t, json.Unmarshal(b, &m))
	require.NotNil(t, m.Provenance.Sandbox)
	return m.Provenance.Sandbox
}

func TestSandboxLevelIsRecorded(t *testing.T) {
	if l, refused, _ := sandbox.Available(); !l.AtLeast(sandbox.LevelLandlock) {
		t.Skipf("no Landlock here: %v", refused)
	}
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	code, out, errOut := run(t, registry(t), "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	s := sandboxOf(t, p.runs)
	assert.Equal(t, "landlock", s.Level)
	assert.NotZero(t, s.LandlockABI)
}

// A kernel without Landlock (simulated): the run degrades to limits and
// says why; -require-sandbox landlock refuses to run at all.
func TestSandboxDegradesOrRefuses(t *testing.T) {
	sandbox.ForceLandlockABI(0)
	t.Cleanup(func() { sandbox.ForceLandlockABI(-1) })
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)

	code, out, errOut := run(t, registry(t), "run", "-q", "-require-sandbox", "landlock", "-runs-root", p.runs, p.cases)
	require.Equal(t, 2, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "-require-sandbox: level landlock is required, but this machine gives only limits: landlock: not supported by this kernel (ENOSYS)")
	_, err := os.Stat(p.runs)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing ran")

	code, out, errOut = run(t, registry(t), "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "lux: sandbox: agents run at level limits: landlock: not supported by this kernel (ENOSYS)")
	s := sandboxOf(t, p.runs)
	assert.Equal(t, "limits", s.Level)
	assert.Contains(t, s.Refused, "landlock: not supported by this kernel (ENOSYS)")
}

// A level below the strongest, chosen with -sandbox, is said on stderr
// and in the record.
func TestSandboxChosenLevel(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	code, out, errOut := run(t, registry(t), "run", "-q", "-sandbox", "none", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "lux: sandbox: agents run at level none (-sandbox)")
	s := sandboxOf(t, p.runs)
	assert.Equal(t, "none", s.Level)
	assert.Equal(t, "none", s.Requested)

	code, _, errOut = run(t, registry(t), "run", "-q", "-sandbox", "limits", "-require-sandbox", "landlock", "-runs-root", p.runs, p.cases)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "level limits is below the required landlock")
}
