package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/cli"
)

func TestPluginsListsWhatTheBinaryRegistered(t *testing.T) {
	reg := registry(t)
	require.NoError(t, reg.RegisterAssertion(&lux.AssertionPlugin{
		Type: "my-check", Version: "3", Harness: true,
		Doc:   "A check the harness binary adds, which a user must find without reading its source.",
		Parse: func(json.RawMessage) (lux.Check, error) { return nil, nil },
	}))

	code, out, errOut := run(t, reg, "plugins")
	require.Equal(t, cli.ExitOK, code, errOut)
	require.Contains(t, out, "Drivers (a case's \"driver\"):\n  subprocess (experiments)\n      runs any program that speaks lux-jsonl")
	require.Contains(t, out, "Answerers (a case's \"answerer\"):\n  scripted\n      Answers interrupts from a script of rules")
	require.Contains(t, out, "  my-check (version 3, calls a model)\n      A check the harness binary adds, which a user must find without reading\n      its source.\n")
	for _, line := range strings.Split(out, "\n") {
		require.LessOrEqual(t, len(line), 80, "line too long for a terminal: %q", line)
	}

	code, out, errOut = run(t, reg, "plugins", "-json")
	require.Equal(t, cli.ExitOK, code, errOut)
	var rep cli.PluginsReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, "lux.plugins/v1", rep.Schema)
	require.Equal(t, []cli.PluginInfo{{Name: "subprocess", Doc: rep.Drivers[0].Doc, Experiments: true}}, rep.Drivers)
	require.Contains(t, rep.Assertions, cli.PluginInfo{Name: "my-check", Version: "3", Harness: true,
		Doc: "A check the harness binary adds, which a user must find without reading its source."})

	code, _, errOut = run(t, reg, "plugins", "extra")
	require.Equal(t, cli.ExitUsage, code)
	require.Equal(t, "lux: plugins: takes no arguments, got \"extra\" (run 'lux plugins -h' for its usage)\n", errOut)
}

func TestPluginsWithAnEmptyRegistry(t *testing.T) {
	code, out, _ := run(t, lux.NewRegistry(), "plugins")
	require.Equal(t, cli.ExitOK, code)
	require.Equal(t, "Drivers (a case's \"driver\"):\n  none registered\n\nAnswerers (a case's \"answerer\"):\n  none registered\n\nAssertion types (an assertion's \"type\"):\n  none registered\n", out)
}
