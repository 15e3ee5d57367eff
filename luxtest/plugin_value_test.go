package luxtest_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/luxtest"
)

// Each Check function reports a nil plugin, a blank name and a nil Parse
// the same way, and checks nothing further without a Parse.
func TestChecksRefuseIncompletePluginValues(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil driver", luxtest.CheckDriver(ctx, nil), []string{"plugin: the plugin is nil"}},
		{"nil answerer", luxtest.CheckAnswerer(ctx, nil, nil), []string{"plugin: the plugin is nil"}},
		{"nil assertion", luxtest.CheckAssertion(ctx, nil), []string{"plugin: the plugin is nil"}},
		{"driver", luxtest.CheckDriver(ctx, &lux.DriverPlugin{Name: " "}), []string{
			"plugin: Name is blank; cases refer to a driver by its name", "plugin: Parse is nil"}},
		{"answerer", luxtest.CheckAnswerer(ctx, &lux.AnswererPlugin{}, json.RawMessage(`{}`)), []string{
			"plugin: Name is blank; cases refer to an answerer by its name", "plugin: Parse is nil"}},
		{"assertion", luxtest.CheckAssertion(ctx, &lux.AssertionPlugin{}), []string{
			"plugin: Type is blank; assertion specs refer to a plugin by its type",
			"plugin: Parse is nil",
			`plugin: Version is blank; set it ("1") and change it when the grading changes, so regrades and comparisons can tell graders apart`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range luxtest.ProblemsOf(tt.err) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
