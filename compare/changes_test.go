package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runText(t *testing.T, c *RunComparison) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.WriteText(&buf))
	return buf.String()
}

// A not-comparable verdict names each differing field as "path: A → B"
// and the exact flag that would accept it; no go-cmp dump.
func TestNotComparableNamesFieldsAndFlag(t *testing.T) {
	root := t.TempDir()
	a := run("", "hello")
	b := run("", "hello", func(r *record.Run) {
		r.Metadata.Provenance.Runtime.Commands[0].Version = "2.0.1"
		r.Metadata.Provenance.CaseHash = "case-2"
		r.Case.Prompt = "write hello.txt saying hi"
		r.Metadata.Provenance.Environment = json.RawMessage(`{"image":"golang:1.27"}`)
	})
	c, err := Runs(ctx, writeRunDir(t, root, a), writeRunDir(t, root, b), Options{})
	require.NoError(t, err)
	require.Equal(t, NotComparable, c.Verdict)
	byField := map[Field]Mismatch{}
	for _, m := range c.Mismatches {
		byField[m.Field] = m
	}
	rt := byField[FieldRuntime]
	assert.Equal(t, "-vary runtime", rt.Flag)
	assert.Equal(t, []FieldChange{{Path: "commands[0].version", A: "1.0", B: "2.0.1"}}, rt.Changes)
	assert.Equal(t, []FieldChange{{Path: "prompt", A: "write hello.txt saying hello", B: "write hello.txt saying hi"}}, byField[FieldCaseHash].Changes)
	assert.Equal(t, []FieldChange{{Path: "image", A: "golang:1.26", B: "golang:1.27"}}, byField[FieldEnvironment].Changes)

	text := runText(t, c)
	assert.Contains(t, text, `commands[0].version: "1.0" → "2.0.1"`)
	assert.Contains(t, text, `prompt: "write hello.txt saying hello" → "write hello.txt saying hi"`)
	assert.Contains(t, text, `image: "golang:1.26" → "golang:1.27"`)
	assert.Contains(t, text, "-vary runtime")
	assert.Contains(t, text, "-vary caseHash -vary runtime -vary environment", "one command line accepts them all")
	assert.NotContains(t, text, "record.RuntimeInfo{", "no go-cmp dump")
	assert.NotContains(t, text, "lux.Case{", "no go-cmp dump")

	// The same for suites: each case names the field change and the flag.
	sroot := t.TempDir()
	mk := func(v string) []spec {
		return grid(2, 1, func(i, _ int) spec {
			s := pass(caseID(i), "")
			s.mutate = func(m *record.Metadata) { m.Provenance.Runtime.Commands[0].Version = v }
			return s
		})
	}
	sa, _ := writeSuite(t, sroot, mk("1.0"), suiteOpts{summary: true, runs: true})
	sb, _ := writeSuite(t, sroot, mk("1.1"), suiteOpts{summary: true, runs: true})
	sc, err := Suites(ctx, sa, sb, Options{})
	require.NoError(t, err)
	text = suiteText(t, sc)
	assert.Contains(t, text, "  ! c00, c01\n    runtime — accept with -vary runtime\n        commands[0].version: \"1.0\" → \"1.1\"\n",
		"cases with the same mismatch are listed together")
	assert.Contains(t, text, "lux compare -vary runtime A B")
	assert.NotContains(t, text, "record.RuntimeInfo{")
	assert.Contains(t, text, "Paired effects: none (no case is paired)")
	assert.NotContains(t, text, "unavailable  unavailable")
}

// A long list of changes is cut, and long values are shortened.
func TestFieldChangesAreBounded(t *testing.T) {
	a := run("a", "hello")
	b := run("b", "hello", func(r *record.Run) {
		r.Metadata.Provenance.Environment = json.RawMessage(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"long":"` + strings.Repeat("x", 500) + `"}`)
	})
	c, err := RunRecords(a, b, Options{})
	require.NoError(t, err)
	text := runText(t, c)
	assert.Contains(t, text, "more changes")
	for _, l := range strings.Split(text, "\n") {
		assert.Less(t, len([]rune(l)), 220, "line too long: %s", l)
	}
}

// Metric rows that neither side has are left out of the text; a row one
// side lacks stays and says why.
func TestRowsUnavailableOnBothSidesAreHidden(t *testing.T) {
	root := t.TempDir()
	noUsage := func(i, _ int) spec {
		s := pass(caseID(i), "")
		s.mutate = func(m *record.Metadata) { m.Usage.Agent, m.Usage.AgentCostUSD = nil, nil }
		return s
	}
	a, _ := writeSuite(t, root, grid(3, 1, noUsage), suiteOpts{summary: true})
	b, _ := writeSuite(t, root, grid(3, 1, noUsage), suiteOpts{summary: true})
	c, err := Suites(ctx, a, b, Options{})
	require.NoError(t, err)
	text := suiteText(t, c)
	assert.NotRegexp(t, `(?m)^  agent tokens\s`, text)
	assert.NotRegexp(t, `(?m)^  agent cost\s`, text)
	assert.Contains(t, text, "not reported on either side: agent tokens, agent cost")
	assert.NotEmpty(t, effectOf(t, c, "agent.total").Unavailable, "the JSON keeps every effect")

	ra := run("a", "hello", func(r *record.Run) { r.Metadata.Usage.Agent, r.Metadata.Usage.AgentCostUSD = nil, nil })
	rb := run("b", "hello", func(r *record.Run) { r.Metadata.Usage.Agent, r.Metadata.Usage.AgentCostUSD = nil, nil })
	rc, err := RunRecords(ra, rb, Options{})
	require.NoError(t, err)
	text = runText(t, rc)
	assert.NotContains(t, text, "unavailable → unavailable")
	assert.Contains(t, text, "not reported by either run")
}

// writeArtifact writes a file of a run's artifacts and records it in
// artifacts.json.
func writeArtifacts(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	var list []lux.Artifact
	for p, body := range files {
		full := filepath.Join(dir, record.ArtifactsDir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(body), 0o644))
		list = append(list, lux.Artifact{Path: p, Size: int64(len(body)), SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(body)))})
	}
	require.NoError(t, record.Writer{}.WriteJSON(filepath.Join(dir, record.ArtifactsFile), list))
}

// A changed text artifact shows a short unified diff; a long one is cut;
// a binary one says so.
func TestChangedArtifactShowsUnifiedDiff(t *testing.T) {
	root := t.TempDir()
	var longA, longB strings.Builder
	for i := range 400 {
		fmt.Fprintf(&longA, "line %d\n", i)
		fmt.Fprintf(&longB, "line %d changed\n", i)
	}
	da := writeRunDir(t, root, run("", "hello", func(r *record.Run) { r.Artifacts = nil }))
	db := writeRunDir(t, root, run("", "hello", func(r *record.Run) { r.Artifacts = nil }))
	writeArtifacts(t, da, map[string]string{"hello.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n", "long.txt": longA.String(), "blob.bin": "\x00\x01\x02", "same.txt": "x\n"})
	writeArtifacts(t, db, map[string]string{"hello.txt": "one\ntwo\nthree\n4\nfive\nsix\nseven\n", "long.txt": longB.String(), "blob.bin": "\x00\x01\x03", "same.txt": "x\n"})
	c, err := Runs(ctx, da, db, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"blob.bin", "hello.txt", "long.txt"}, c.Artifacts.Changed)
	diffs := map[string]ArtifactDiff{}
	for _, d := range c.Artifacts.Diffs {
		diffs[d.Path] = d
	}
	assert.Equal(t, "--- a/hello.txt\n+++ b/hello.txt\n@@ -1,7 +1,7 @@\n one\n two\n three\n-four\n+4\n five\n six\n seven", diffs["hello.txt"].Diff)
	assert.True(t, diffs["blob.bin"].Binary)
	assert.Empty(t, diffs["blob.bin"].Diff)
	assert.True(t, diffs["long.txt"].Truncated)
	assert.LessOrEqual(t, strings.Count(diffs["long.txt"].Diff, "\n")+1, maxDiffLines)

	text := runText(t, c)
	assert.Contains(t, text, "  ~ hello.txt\n      --- a/hello.txt\n      +++ b/hello.txt\n      @@ -1,7 +1,7 @@\n")
	assert.Contains(t, text, "      -four\n      +4\n")
	assert.Contains(t, text, "  ~ blob.bin (binary)")
	assert.Contains(t, text, "more diff lines")
}
