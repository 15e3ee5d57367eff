package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/cli"
)

// A registered hook is listed under its own heading (and in -json); a
// binary without hooks shows no such heading.
func TestPluginsListsHooks(t *testing.T) {
	reg := registry(t)
	_, out, _ := run(t, reg, "plugins")
	require.NotContains(t, out, "Lifecycle hooks")

	require.NoError(t, reg.RegisterHook(&lux.HookPlugin{Name: "postgres", Version: "2", Doc: "Starts a database for the suite.",
		Parse: func(json.RawMessage) (lux.Hook, error) { return lux.HookFuncs{}, nil }}))
	code, out, errOut := run(t, reg, "plugins")
	require.Equal(t, cli.ExitOK, code, errOut)
	require.Contains(t, out, "Lifecycle hooks (lux.json's \"hooks\"):\n  postgres (version 2)\n      Starts a database for the suite.\n")
	_, out, _ = run(t, reg, "plugins", "-json")
	var rep cli.PluginsReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, []cli.PluginInfo{{Name: "postgres", Version: "2", Doc: "Starts a database for the suite."}}, rep.Hooks)
}
