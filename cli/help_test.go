package cli_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

func TestVersion(t *testing.T) {
	code, out, errOut := run(t, registry(t), "--version")
	require.Equal(t, 0, code)
	require.Equal(t, "lux "+lux.Version+"\n", out)
	require.Empty(t, errOut)
}

// Every command's help is its description and only its own flags, on
// stdout with exit status 0, whether asked as `lux help CMD` or `lux CMD -h`.
func TestCommandHelp(t *testing.T) {
	reg := registry(t)
	ownFlags := map[string][]string{
		"run":      {"-driver", "-j", "-repeat", "-runs-root", "-json", "-junit", "-resume"},
		"validate": {"-driver", "-answerer", "-tag", "-json"},
		"doctor":   {"-driver", "-runs-root", "-json"},
		"view":     {"-runs-root", "-events", "-json"},
		"compare":  {"-vary", "-json"},
	}
	notOwn := map[string][]string{
		"validate": {"-j ", "-repeat", "-runs-root", "-environment", "-q "},
		"doctor":   {"-j ", "-repeat", "-environment"},
		"view":     {"-driver", "-repeat"},
	}
	for name, flags := range ownFlags {
		t.Run(name, func(t *testing.T) {
			code, help, errOut := run(t, reg, "help", name)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut)
			require.True(t, strings.HasPrefix(help, "Usage: lux "+name+" "), help)
			for _, f := range flags {
				assert.Contains(t, help, "  "+f, "lux help %s", name)
			}
			for _, f := range notOwn[name] {
				assert.NotContains(t, help, "  "+f, "lux help %s lists a flag of another command", name)
			}
			for _, h := range []string{"-h", "--help", "-help"} {
				code, out, errOut := run(t, reg, name, h)
				require.Equal(t, 0, code, errOut)
				require.Empty(t, errOut)
				require.Equal(t, help, out, "lux %s %s", name, h)
			}
		})
	}
}

func TestHelpErrors(t *testing.T) {
	reg := registry(t)
	code, out, errOut := run(t, reg, "help", "frobnicate")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, `unknown command "frobnicate"`)

	code, out, errOut = run(t, reg, "view", "-no-such-flag")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "flag provided but not defined: -no-such-flag")
	require.Contains(t, errOut, "lux view -h")
}
