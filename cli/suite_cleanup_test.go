package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// A suite hook whose cleanup fails: lux run says so and exits non-zero,
// suite.json records it, and lux view of the suite shows it (in text and
// JSON) beside the runs' verdicts, which stand.
func TestViewShowsASuiteHookCleanupFailure(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	reg := registry(t)
	require.NoError(t, reg.RegisterHook(&lux.HookPlugin{Name: "db", Version: "1", Doc: "A database that does not stop.",
		Parse: func(json.RawMessage) (lux.Hook, error) {
			return lux.HookFuncs{Suite: func(context.Context, lux.SuiteScope) (lux.Cleanup, error) {
				return func(context.Context) error { return errors.New("the database did not stop") }, nil
			}}, nil
		}}))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{"hooks": [{"name": "db"}]}`), 0o644))
	t.Chdir(p.dir)
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", p.runs, p.cases)
	require.NotEqual(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "the database did not stop")

	suites, err := filepath.Glob(filepath.Join(p.runs, ".suites", "*"))
	require.NoError(t, err)
	require.Len(t, suites, 1)
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	assert.Contains(t, s.Manifest.CleanupError, "the database did not stop")

	code, out, errOut = run(t, reg, "view", suites[0])
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `hello\s+1\s+pass\s`, out)
	assert.Contains(t, out, `suite hook cleanup failed: hook #1 "db": cleanup: the database did not stop`)

	code, out, _ = run(t, reg, "view", "-json", suites[0])
	require.Equal(t, 0, code)
	doc := decodeJSON(t, out, "lux.suite/v1")
	assert.Contains(t, doc["cleanupError"], "the database did not stop")
}
