package driver_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/driver/claudecode"
	"github.com/luxeval/lux/driver/codex"
	"github.com/luxeval/lux/driver/cursor"
	"github.com/luxeval/lux/driver/subprocess"
)

type parseTestConfig struct {
	Name   string            `json:"name"`
	Count  int               `json:"count"`
	Inner  *parseTestInner   `json:"inner,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type parseTestInner struct {
	URL string `json:"url"`
}

func (c *parseTestConfig) validate() error {
	var p lux.Problems
	if c.Name == "" {
		p.Add("name", "required")
	}
	if c.Count < 0 {
		p.Add("count", "negative")
	}
	if c.Inner != nil && c.Inner.URL == "" {
		p.Add("inner.url", "required")
	}
	return p.Err(lux.ErrInvalidConfig)
}

func problems(err error) []string {
	var out []string
	for _, e := range lux.ProblemsOf(err) {
		out = append(out, e.Error())
	}
	return out
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "valid", raw: `{"name":"a","count":1}`},
		{name: "unknown and invalid together", raw: `{"name":"a","bogus":1,"count":-1}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "count: negative"}},
		{name: "nested unknown and invalid", raw: `{"name":"a","inner":{"URL":"x"}}`,
			want: []string{`inner.URL: unknown field (did you mean "url"?)`, "inner.url: required"}},
		{name: "unknown and wrong type", raw: `{"bogus":1,"name":3,"count":-1}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "name: must be a string, got number", "count: negative"}},
		{name: "a value of the wrong type is not also required", raw: `{"name":3}`,
			want: []string{"name: must be a string, got number"}},
		{name: "big numbers keep their text", raw: `{"name":"a","bogus":1,"count":12345678901234567890}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "count: must be a whole number, got number 12345678901234567890"}},
		{name: "not an object", raw: `[1]`, want: []string{"must be a JSON object, got a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c parseTestConfig
			err := driver.ParseConfig(json.RawMessage(tt.raw), &c, c.validate)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, errors.Is(err, lux.ErrInvalidConfig), "%v", err)
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// Every driver reports an unknown field and an invalid value at once.
func TestDriversReportEveryConfigProblem(t *testing.T) {
	raw := json.RawMessage(`{"bogus":1,"idleTimeout":"-1s"}`)
	for _, p := range []*lux.DriverPlugin{claudecode.Plugin(), codex.Plugin(), cursor.Plugin(), subprocess.Plugin()} {
		t.Run(p.Name, func(t *testing.T) {
			_, err := p.Parse(raw)
			require.True(t, errors.Is(err, lux.ErrInvalidConfig), "%v", err)
			var paths []string
			for _, e := range lux.ProblemsOf(err) {
				var fe *lux.FieldError
				require.True(t, errors.As(e, &fe), "%v is not a FieldError", e)
				paths = append(paths, fe.Path)
			}
			assert.Contains(t, paths, "bogus")
			assert.Contains(t, paths, "idleTimeout")
		})
	}
}
