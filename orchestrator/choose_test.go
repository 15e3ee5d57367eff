package orchestrator

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

// The precedence rule, one row per combination of what the case names,
// the default and the override (see the table in docs/cli.md).
func TestChoose(t *testing.T) {
	ref := func(name, cfg string) *lux.PluginRef {
		r := &lux.PluginRef{Name: name}
		if cfg != "" {
			r.Config = json.RawMessage(cfg)
		}
		return r
	}
	oldAgent := ref("subprocess", `{"command":"./old","env":{"A":"case"}}`)
	newAgent := ref("subprocess", `{"command":"bin/new","env":{"B":"flag"}}`)
	tests := []struct {
		name           string
		own, def, over *lux.PluginRef
		want           string // the config that runs, as JSON; "" for none
		wantName       string
		source         Source
		replaced       *lux.PluginRef
	}{
		{name: "nothing names one"},
		{name: "the default, for a case that names none", def: newAgent, want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromDefault},
		{name: "the case's own, no default", own: oldAgent, want: `{"command":"./old","env":{"A":"case"}}`, wantName: "subprocess", source: FromCase},
		{name: "the case's own over a default of another plugin", own: oldAgent, def: ref("codex", `{"model":"x"}`), want: `{"command":"./old","env":{"A":"case"}}`, wantName: "subprocess", source: FromCase},
		{name: "the case over a default of its plugin: merged, the case winning", own: oldAgent, def: newAgent,
			want: `{"command":"./old","env":{"A":"case","B":"flag"}}`, wantName: "subprocess", source: FromCaseOverDefault},
		{name: "a case naming only the default's plugin takes its config", own: ref("subprocess", ""), def: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromCaseOverDefault},
		{name: "merge: lists are replaced, objects merged", own: ref("x", `{"b":2,"nested":{"y":3},"list":[9]}`), def: ref("x", `{"a":1,"nested":{"x":1,"y":2},"list":[1,2]}`),
			want: `{"a":1,"b":2,"nested":{"x":1,"y":3},"list":[9]}`, wantName: "x", source: FromCaseOverDefault},
		{name: "the override, for a case that names none", def: oldAgent, over: newAgent, want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride},
		{name: "the override replaces the case's own, nothing merged", own: oldAgent, def: oldAgent, over: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride, replaced: oldAgent},
		{name: "the override replaces another plugin", own: ref("codex", ""), over: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride, replaced: ref("codex", "")},
		{name: "a case naming the override's plugin alone replaces nothing", own: ref("subprocess", ""), over: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride},
		{name: "the override replaces a case naming its plugin with another config", own: ref("subprocess", `{"command":"bin/new"}`), over: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride, replaced: ref("subprocess", `{"command":"bin/new"}`)},
		{name: "a case naming exactly the override replaces nothing", own: ref("subprocess", `{"env":{"B":"flag"},"command":"bin/new"}`), over: newAgent,
			want: `{"command":"bin/new","env":{"B":"flag"}}`, wantName: "subprocess", source: FromOverride},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Choose(tt.own, tt.def, tt.over)
			require.NoError(t, err)
			if tt.want == "" {
				require.Nil(t, got.Ref)
				return
			}
			require.NotNil(t, got.Ref)
			raw, err := lux.ConfigJSON(got.Ref.Config)
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(raw))
			if diff := cmp.Diff([]any{tt.wantName, tt.source, tt.replaced}, []any{got.Ref.Name, got.Source, got.Replaced}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
