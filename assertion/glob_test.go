package assertion_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/luxeval/lux"
)

// A glob alternative that is absolute or climbs out is refused like a
// whole glob that is: brace expansion does not hide it.
func TestGlobAlternativesAreChecked(t *testing.T) {
	fix := ` (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`
	tests := []struct{ glob, want string }{
		{"{/etc/passwd,x}", `glob: "{/etc/passwd,x}" is absolute` + fix},
		{"{x,/etc}/*", `glob: "{x,/etc}/*" is absolute` + fix},
		{"{x,..}/secret", `glob: "{x,..}/secret" climbs out with ".."` + fix},
	}
	for _, tt := range tests {
		t.Run(tt.glob, func(t *testing.T) {
			cfg, _ := json.Marshal(map[string]any{"glob": tt.glob, "min": 1})
			_, err := plugin(t, "glob-count").Parse(cfg)
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if !errors.Is(err, lux.ErrInvalidConfig) || err.Error() != "lux: invalid config: "+tt.want {
				t.Errorf("Parse = %v\nwant      %s", err, tt.want)
			}
		})
	}
}
