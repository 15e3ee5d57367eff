package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/record"
)

// failingSuites runs the color case (which fails) twice, in two suites,
// and returns the runs root and both suites' directories and run
// directories.
func failingSuites(t *testing.T) (root, suiteA, suiteB, runA, runB string) {
	t.Helper()
	reg := registry(t)
	dir := t.TempDir()
	path := writeCase(t, dir, "color.case.json", echoColorCase)
	root = filepath.Join(dir, "runs")
	for range 2 {
		code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), path)
		require.Equal(t, cli.ExitFailed, code, "%s\n%s", out, errOut)
	}
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	require.Len(t, runs, 2)
	return root, suites[0], suites[1], runs[0], runs[1]
}

// editJSON rewrites the JSON file at path through f, as an agent forging
// a record would.
func editJSON(t *testing.T, path string, f func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	f(m)
	b, err = json.MarshalIndent(m, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// forgePass rewrites run B and suite B consistently, as the hostile agent
// did: the artifact, artifacts.json with its hash, run.json's evidence
// fingerprint, grading.json, suite.json and suite-summary.json all say pass.
func forgePass(t *testing.T, runB, suiteB string) {
	t.Helper()
	art := filepath.Join(runB, record.ArtifactsDir, "color.txt")
	require.NoError(t, os.WriteFile(art, []byte("red"), 0o600))
	r, err := record.ReadRun(runB)
	require.NoError(t, err)
	sum := "9b9a3c5ab0aa4e4e3bc7ea4cdcc2b5c4c1b2a8ad9d1f1f0b0e6b1a7c0d4e5f60" // any
	for i := range r.Artifacts {
		if r.Artifacts[i].Path == "color.txt" {
			r.Artifacts[i].Size, r.Artifacts[i].SHA256 = 3, sum
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(runB, record.ArtifactsFile), mustJSON(t, r.Artifacts), 0o600))
	editJSON(t, filepath.Join(runB, record.MetadataFile), func(m map[string]any) {
		m["evidence"].(map[string]any)["artifactsHash"] = "forged"
	})
	editJSON(t, filepath.Join(runB, record.GradingFile), func(m map[string]any) {
		m["casePassed"], m["caseScore"] = true, 1.0
		for _, a := range m["assertions"].([]any) {
			a.(map[string]any)["passed"], a.(map[string]any)["score"] = true, 1.0
		}
	})
	editJSON(t, filepath.Join(suiteB, record.SuiteFile), func(m map[string]any) {
		m["status"] = "passed"
		for _, it := range m["items"].([]any) {
			it.(map[string]any)["passed"], it.(map[string]any)["verdict"] = true, "pass"
		}
	})
	editJSON(t, filepath.Join(suiteB, record.SuiteSummaryFile), func(m map[string]any) {
		m["status"] = "passed"
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// A record forged after the fact — consistently, every file agreeing — is
// refused by every surface, naming the run and the file.
func TestForgedRecordsAreRefusedEverywhere(t *testing.T) {
	reg := registry(t)
	root, suiteA, suiteB, runA, runB := failingSuites(t)

	code, out, errOut := run(t, reg, "view", runB)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "seal:        verified")

	forgePass(t, runB, suiteB)
	refused := func(name string, code int, out, errOut, file string) {
		t.Helper()
		assert.NotEqual(t, cli.ExitOK, code, "%s: %s", name, out)
		assert.Contains(t, errOut, "changed since it was sealed", name)
		assert.Contains(t, errOut, file, name)
	}
	code, out, errOut = run(t, reg, "view", runB)
	refused("view run", code, out, errOut, record.MetadataFile)
	code, out, errOut = run(t, reg, "view", suiteB)
	refused("view suite", code, out, errOut, record.SuiteFile)
	code, out, errOut = run(t, reg, "compare", suiteA, suiteB)
	refused("compare suites", code, out, errOut, suiteB)
	code, out, errOut = run(t, reg, "compare", runA, runB)
	refused("compare runs", code, out, errOut, runB)
	code, out, errOut = run(t, reg, "grade", runB)
	refused("grade", code, out, errOut, runB)
	code, out, errOut = run(t, reg, "report", "-html", filepath.Join(t.TempDir(), "r.html"), runB)
	refused("report run", code, out, errOut, runB)
	code, out, errOut = run(t, reg, "report", "-html", filepath.Join(t.TempDir(), "s.html"), suiteB)
	refused("report suite", code, out, errOut, suiteB)
	code, out, _ = run(t, reg, "view", "-runs-root", root)
	assert.Equal(t, cli.ExitOK, code)
	assert.Contains(t, out, "unreadable: record: the record changed since it was sealed")
}

// Each file of a record is sealed: changing any one alone is refused, and
// so is adding a grading, removing the seal, or rewriting the seal.
func TestEachSealedFileIsChecked(t *testing.T) {
	reg := registry(t)
	_, _, suiteB, _, runB := failingSuites(t)
	saved := map[string][]byte{}
	for _, p := range []string{runB, suiteB} {
		entries, err := os.ReadDir(p)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(p, e.Name()))
				require.NoError(t, err)
				saved[filepath.Join(p, e.Name())] = b
			}
		}
	}
	restore := func() {
		for p, b := range saved {
			require.NoError(t, os.WriteFile(p, b, 0o600))
		}
		_ = os.RemoveAll(filepath.Join(runB, record.GradingsDir))
	}
	for _, tc := range []struct {
		name, dir, want string
		change          func()
	}{
		{"case.json", runB, record.CaseFile, func() { appendTo(t, filepath.Join(runB, record.CaseFile), " ") }},
		{"run.json", runB, record.MetadataFile, func() { appendTo(t, filepath.Join(runB, record.MetadataFile), " ") }},
		{"grading.json", runB, record.GradingFile, func() { appendTo(t, filepath.Join(runB, record.GradingFile), " ") }},
		{"artifacts.json", runB, record.ArtifactsFile, func() { appendTo(t, filepath.Join(runB, record.ArtifactsFile), " ") }},
		{"events.jsonl", runB, record.EventsFile, func() { appendTo(t, filepath.Join(runB, record.EventsFile), "\n") }},
		{"a grading added", runB, "gradings/", func() {
			require.NoError(t, os.MkdirAll(filepath.Join(runB, record.GradingsDir), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(runB, record.GradingsDir, "2030-01-01T00-00-00-000Z.json"), []byte(`{}`), 0o600))
		}},
		{"seal rewritten", runB, record.SealFile, func() {
			editJSON(t, filepath.Join(runB, record.SealFile), func(m map[string]any) {
				m["files"].(map[string]any)[record.MetadataFile] = strings.Repeat("0", 64)
			})
		}},
		{"seal removed", runB, record.SealFile, func() { require.NoError(t, os.Remove(filepath.Join(runB, record.SealFile))) }},
		{"suite.json", suiteB, record.SuiteFile, func() { appendTo(t, filepath.Join(suiteB, record.SuiteFile), " ") }},
		{"suite-summary.json", suiteB, record.SuiteSummaryFile, func() { appendTo(t, filepath.Join(suiteB, record.SuiteSummaryFile), " ") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer restore()
			code, out, errOut := run(t, reg, "view", "-events", "0", tc.dir)
			require.Equal(t, cli.ExitOK, code, "before: %s%s", out, errOut)
			tc.change()
			_, err := record.VerifySeal(tc.dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			code, out, errOut = run(t, reg, "view", "-events", "0", tc.dir)
			assert.Equal(t, cli.ExitUsage, code, out)
			assert.Contains(t, errOut, tc.dir)
			if tc.dir == runB && tc.name != "a grading added" {
				code, _, errOut = run(t, reg, "grade", tc.dir)
				assert.Equal(t, cli.ExitUsage, code, errOut)
			}
		})
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// A record made before sealing existed still reads, as unsealed; a sealed
// record whose key is missing or not a key is a clear error.
func TestUnsealedRecordsAndMissingKeys(t *testing.T) {
	reg := registry(t)
	root, _, suiteB, _, runB := failingSuites(t)
	keyDir := record.SealKeyDirOf(root)
	key, err := os.ReadFile(record.SealKeyPath(root))
	require.NoError(t, err)

	// The key is gone: sealed records cannot be checked, so are not read.
	require.NoError(t, os.RemoveAll(keyDir))
	code, _, errOut := run(t, reg, "view", runB)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "is sealed but no key was found")
	assert.Contains(t, errOut, runB)

	// A key that is not one.
	require.NoError(t, os.MkdirAll(keyDir, 0o700))
	require.NoError(t, os.WriteFile(record.SealKeyPath(root), []byte("nope"), 0o600))
	code, _, errOut = run(t, reg, "view", runB)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "is not a sealing key")

	// Another key.
	require.NoError(t, os.RemoveAll(keyDir))
	_, err = record.OpenSealKey(root)
	require.NoError(t, err)
	code, _, errOut = run(t, reg, "view", runB)
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "was sealed with key")

	// A runs root from before sealing: no key, no seals.
	require.NoError(t, os.RemoveAll(keyDir))
	require.NoError(t, os.Remove(filepath.Join(runB, record.SealFile)))
	require.NoError(t, os.Remove(filepath.Join(suiteB, record.SealFile)))
	code, out, errOut := run(t, reg, "view", runB)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "seal:        unsealed")
	assert.NotContains(t, out, "verified")
	code, out, errOut = run(t, reg, "view", suiteB)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "unsealed")
	code, _, errOut = run(t, reg, "grade", runB)
	assert.Equal(t, cli.ExitFailed, code, errOut)
	_ = key
}

// A run's record forged alone, its suite's files untouched: the suite's
// view and report never show the forged run as a run, nor figures it does
// not have; they name the run and the file, and exit non-zero. A
// comparison of the suites reads their sealed summaries, which stand.
func TestAForgedRunIsRefusedInItsSuite(t *testing.T) {
	reg := registry(t)
	_, suiteA, suiteB, _, runB := failingSuites(t)
	editJSON(t, filepath.Join(runB, record.GradingFile), func(m map[string]any) {
		m["casePassed"], m["caseScore"] = true, 1.0
	})

	code, out, errOut := run(t, reg, "view", suiteB)
	assert.Equal(t, cli.ExitUsage, code, out)
	assert.Contains(t, errOut, "changed since it was sealed")
	assert.Contains(t, errOut, runB)
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "color ") {
			row = l
			break
		}
	}
	fields := strings.Fields(row)
	require.Len(t, fields, 8, out)
	assert.Equal(t, []string{"FAIL", "-", "-", "-", "-"}, fields[2:7], "the suite's verdict, and no figure the record cannot give: %s", out)
	assert.Contains(t, out, "its record cannot be read")

	code, out, errOut = run(t, reg, "view", "-json", suiteB)
	assert.Equal(t, cli.ExitUsage, code, out)
	var rep struct {
		Runs []record.RunRow `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), errOut)
	require.Len(t, rep.Runs, 1)
	assert.Contains(t, rep.Runs[0].RecordError, "changed since it was sealed")

	code, out, errOut = run(t, reg, "report", "-html", filepath.Join(t.TempDir(), "s.html"), suiteB)
	assert.NotEqual(t, cli.ExitOK, code, out)
	assert.Contains(t, errOut, "changed since it was sealed")

	code, out, errOut = run(t, reg, "compare", suiteA, suiteB)
	assert.Equal(t, cli.ExitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "0 pass → fail, 0 fail → pass")
}

// A run's artifact changed after the fact, its JSON files untouched (the
// seal covers artifacts.json, which fingerprints the artifacts): the
// run's view, comparison and report refuse it, as grading again does.
func TestAChangedArtifactIsRefused(t *testing.T) {
	reg := registry(t)
	_, _, _, runA, runB := failingSuites(t)
	require.NoError(t, os.WriteFile(filepath.Join(runB, record.ArtifactsDir, "color.txt"), []byte("red"), 0o600))
	refused := func(name string, code int, out, errOut string) {
		t.Helper()
		assert.Equal(t, cli.ExitUsage, code, "%s: %s", name, out)
		assert.Contains(t, errOut, "evidence changed since it was recorded", name)
		assert.Contains(t, errOut, filepath.Join(runB, record.ArtifactsDir, "color.txt"), name)
	}
	code, out, errOut := run(t, reg, "view", runB)
	refused("view run", code, out, errOut)
	code, out, errOut = run(t, reg, "compare", runA, runB)
	refused("compare runs", code, out, errOut)
	code, out, errOut = run(t, reg, "report", "-html", filepath.Join(t.TempDir(), "r.html"), runB)
	refused("report run", code, out, errOut)
	code, out, errOut = run(t, reg, "grade", runB)
	refused("grade", code, out, errOut)
}

// A sealed record copied over another run's or suite's directory (a
// replay: every file as the harness sealed it, but another record's) is
// refused: a record is read only in the directory it was sealed for.
func TestARecordCopiedOverAnotherIsRefused(t *testing.T) {
	reg := registry(t)
	_, suiteA, suiteB, runA, runB := failingSuites(t)
	replace := func(from, to string) {
		t.Helper()
		require.NoError(t, os.RemoveAll(to))
		require.NoError(t, os.CopyFS(to, os.DirFS(from)))
	}
	replace(runA, runB)
	replace(suiteA, suiteB)

	_, err := record.ReadRun(runB)
	require.ErrorIs(t, err, record.ErrSealBroken)
	_, err = record.ReadSuite(suiteB)
	require.ErrorIs(t, err, record.ErrSealBroken)
	_, err = record.VerifySeal(runB)
	require.ErrorIs(t, err, record.ErrSealBroken)

	refused := func(name string, code int, out, errOut, dir string) {
		t.Helper()
		assert.Equal(t, cli.ExitUsage, code, "%s: %s", name, out)
		assert.Contains(t, errOut, "sealed for", name)
		assert.Contains(t, errOut, dir, name)
	}
	code, out, errOut := run(t, reg, "view", runB)
	refused("view run", code, out, errOut, runB)
	code, out, errOut = run(t, reg, "view", suiteB)
	refused("view suite", code, out, errOut, suiteB)
	code, out, errOut = run(t, reg, "compare", runA, runB)
	refused("compare runs", code, out, errOut, runB)
	code, out, errOut = run(t, reg, "compare", suiteA, suiteB)
	refused("compare suites", code, out, errOut, suiteB)
	code, out, errOut = run(t, reg, "grade", runB)
	refused("grade", code, out, errOut, runB)

	// The original records still read where they were sealed.
	_, err = record.ReadRun(runA)
	require.NoError(t, err)
	_, err = record.ReadSuite(suiteA)
	require.NoError(t, err)
}
