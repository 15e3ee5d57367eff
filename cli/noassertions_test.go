package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/cli"
)

// A case without assertions can never pass: validate says so, and the run
// summary says why its runs are ungraded.
func TestCaseWithoutAssertionsIsExplained(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	path := writeCase(t, dir, "bare.case.json", `{"prompt":"write hello.txt containing \"hi\""}`)

	code, out, _ := run(t, reg, "validate", "-driver", driverJSON(), path)
	assert.Equal(t, cli.ExitOK, code, out)
	assert.Contains(t, out, "warning: no assertions")
	assert.Contains(t, out, "run-succeeded")

	code, out, _ = run(t, reg, "validate", "-json", "-driver", driverJSON(), path)
	assert.Equal(t, cli.ExitOK, code, out)
	assert.Contains(t, out, `"warnings"`)

	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", filepath.Join(dir, "runs"), "-driver", driverJSON(), path)
	assert.Equal(t, cli.ExitFailed, code)
	assert.Contains(t, out+errOut, "ungraded")
	assert.Contains(t, out+errOut, "the case has no assertions")
}
