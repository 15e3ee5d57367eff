package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/persona"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/assertion/rubric"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/driver/subprocess"
)

// A config with a misspelled field and a bad value in the same plugin
// gets both reported, each at its field path, for the driver, the
// answerer and the assertions alike: a typo does not hide the rest.
func TestValidateReportsTyposAndBadValuesOfEveryPluginTogether(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(scripted.Plugin()))
	require.NoError(t, reg.RegisterAnswerer(persona.Plugin()))
	require.NoError(t, assertion.Register(reg))
	require.NoError(t, reg.RegisterAssertion(rubric.Plugin()))

	dir := t.TempDir()
	driver := fmt.Sprintf(`{"name": "subprocess", "config": {"command": %q, "idleTimeout": "-1s", "idleTimout": "1s"}}`, agentBin)
	assertions := `[
	  {"type": "file-contains", "pth": "hello.txt", "text": "hi"},
	  {"type": "rubric", "critera": "says hello", "evidence": {"maxPromptChars": 5}}
	]`
	withPersona := writeCase(t, dir, "persona.case.json", fmt.Sprintf(`{
	  "prompt": "say hello", "persona": "a terse user", "driver": %s,
	  "answerer": {"name": "persona", "config": {"maxHistory": -5, "maxHistroy": 5}},
	  "assertions": %s
	}`, driver, assertions))
	withRules := writeCase(t, dir, "scripted.case.json", fmt.Sprintf(`{
	  "prompt": "say hello", "driver": %s,
	  "answerer": {"name": "scripted", "config": {"rules": [{"match": "(", "anwser": "blue"}]}},
	  "assertions": %s
	}`, driver, assertions))

	code, out, errOut := run(t, reg, "validate", "-json", withPersona, withRules)
	require.Equal(t, cli.ExitUsage, code, "%s\n%s", out, errOut)
	var rep cli.ValidateReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Cases, 2)

	common := []string{
		"driver.config.idleTimeout",
		"driver.config.idleTimout",
		"assertions[0].pth",
		"assertions[0].path",
		"assertions[1].critera",
		"assertions[1].criteria",
		"assertions[1].evidence.maxPromptChars",
	}
	want := map[string][]string{
		filepath.Base(withPersona): append([]string{"answerer.config.maxHistory", "answerer.config.maxHistroy"}, common...),
		filepath.Base(withRules):   append([]string{"answerer.config.rules[0].anwser", "answerer.config.rules[0].match"}, common...),
	}
	for _, c := range rep.Cases {
		require.False(t, c.Valid, c.Path)
		got := map[string]bool{}
		for _, p := range c.Problems {
			got[p.Field] = true
		}
		for _, field := range want[filepath.Base(c.Path)] {
			require.True(t, got[field], "%s: no problem at %s in\n%s", c.Path, field, out)
		}
	}
}

// A misspelt field of the case itself hides neither the case's own
// problems nor its plugins', in lux validate and in lux run alike; a value
// of the wrong type is reported once, not again as missing.
func TestValidateReportsATypoInTheCaseWithEverythingElse(t *testing.T) {
	reg := registry(t)
	dir := t.TempDir()
	path := writeCase(t, dir, "typo.case.json", fmt.Sprintf(`{
	  "promt": "say hello", "timeout": true,
	  "driver": {"name": "subprocess", "config": {"command": %q, "idleTimeout": "-1s"}},
	  "assertions": [{"type": "file-exists"}]
	}`, agentBin))

	code, out, errOut := run(t, reg, "validate", "-json", path)
	require.Equal(t, cli.ExitUsage, code, "%s\n%s", out, errOut)
	var rep cli.ValidateReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Cases, 1)
	var fields []string
	for _, p := range rep.Cases[0].Problems {
		fields = append(fields, p.Field)
	}
	require.ElementsMatch(t, []string{"promt", "prompt", "timeout", "driver.config.idleTimeout", "assertions[0].path"}, fields, out)

	code, _, errOut = run(t, reg, "run", "-runs-root", t.TempDir(), path)
	require.Equal(t, cli.ExitUsage, code)
	for _, want := range []string{"promt: unknown field", "prompt: required", "timeout:"} {
		require.Contains(t, errOut, want)
	}
}
