package driver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/driver/subprocess"
)

// A parsed config marshals to the same bytes (and so the same provenance
// hash) whatever the order of its fields and maps, every time.
func TestConfigsMarshalDeterministically(t *testing.T) {
	tests := []struct {
		plugin *lux.DriverPlugin
		a, b   string
	}{
		{claudecode.Plugin(),
			`{"model":"sonnet","env":{"B":"2","A":"1","C":"3"},"allowedTools":["Write","Bash"],"settings":"{\"b\":1,\"a\":2}"}`,
			`{"settings":"{\"b\":1,\"a\":2}","allowedTools":["Write","Bash"],"env":{"C":"3","A":"1","B":"2"},"model":"sonnet"}`},
		{codex.Plugin(),
			`{"mode":"app-server","config":{"z":{"b":1,"a":[1,2]},"a":"x"},"env":{"B":"2","A":"1"},"provider":{"baseURL":"http://127.0.0.1:1/v1","envKey":"K"}}`,
			`{"provider":{"envKey":"K","baseURL":"http://127.0.0.1:1/v1"},"env":{"A":"1","B":"2"},"config":{"a":"x","z":{"a":[1,2],"b":1}},"mode":"app-server"}`},
		{cursor.Plugin(),
			`{"env":{"B":"2","A":"1"},"extraArgs":["--x"],"model":"m"}`,
			`{"model":"m","extraArgs":["--x"],"env":{"A":"1","B":"2"}}`},
		{subprocess.Plugin(),
			`{"command":"./a","env":{"B":"2","A":"1"},"args":["x"]}`,
			`{"args":["x"],"env":{"A":"1","B":"2"},"command":"./a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.plugin.Name, func(t *testing.T) {
			marshal := func(raw string) (string, lux.DriverConfig) {
				cfg, err := tt.plugin.Parse(json.RawMessage(raw))
				require.NoError(t, err)
				b, err := json.Marshal(cfg)
				require.NoError(t, err)
				return string(b), cfg
			}
			first, _ := marshal(tt.a)
			for range 20 {
				again, _ := marshal(tt.a)
				require.Equal(t, first, again)
				other, _ := marshal(tt.b)
				require.Equal(t, first, other)
			}
		})
	}
}
