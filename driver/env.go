package driver

import (
	"os"
	"sort"
	"strings"

	"github.com/luxeval/lux/internal/proc"
)

// DefaultPath is the PATH to give an agent that does not inherit the host
// environment: the usual system directories, the same on every machine so
// that a controlled run does not depend on the host's PATH.
const DefaultPath = proc.DefaultPath

// BuildEnv returns a child environment as KEY=VALUE entries sorted by key:
// the host environment (os.Environ) when inherit is true, else nothing;
// then each layer in order, later layers overriding earlier ones.
//
// A child that does not inherit gets only what the layers set: no PATH,
// HOME or locale unless a layer provides them (see DefaultPath).
func BuildEnv(inherit bool, layers ...map[string]string) []string {
	m := map[string]string{}
	if inherit {
		for _, kv := range os.Environ() {
			k, v, ok := strings.Cut(kv, "=")
			if ok && k != "" {
				m[k] = v
			}
		}
	}
	for _, l := range layers {
		for k, v := range l {
			m[k] = v
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m[k]
	}
	return out
}

// LookupEnv returns the value of key in env (KEY=VALUE entries; the last
// one wins, as for exec).
func LookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
