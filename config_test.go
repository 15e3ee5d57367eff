package lux_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/naming"
)

type validatedConfig struct {
	Name   string            `json:"name"`
	Count  int               `json:"count"`
	Inner  *validatedInner   `json:"inner,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type validatedInner struct {
	URL string `json:"url"`
}

func (c *validatedConfig) validate() error {
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
	for k, v := range c.Labels {
		if v == "" {
			p.Add(naming.Join("labels", k), "empty")
		}
	}
	return p.Err(lux.ErrInvalidConfig)
}

func problemTexts(err error) []string {
	var out []string
	for _, e := range lux.ProblemsOf(err) {
		out = append(out, e.Error())
	}
	return out
}

// DecodeConfig reports unknown fields, values of the wrong type and what
// validation finds in the fields that decoded, in one error.
func TestDecodeConfigValidates(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "valid", raw: `{"name":"a","count":1}`},
		{name: "empty is validated", raw: ``, want: []string{"name: required"}},
		{name: "null is validated", raw: `null`, want: []string{"name: required"}},
		{name: "unknown and invalid together", raw: `{"name":"a","bogus":1,"count":-1}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "count: negative"}},
		{name: "nested unknown and invalid", raw: `{"name":"a","inner":{"URL":"x"}}`,
			want: []string{`inner.URL: unknown field (did you mean "url"?)`, "inner.url: required"}},
		{name: "unknown and wrong type", raw: `{"bogus":1,"name":3,"count":-1}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "name: must be a string, got number", "count: negative"}},
		{name: "a value of the wrong type is not also required", raw: `{"name":3}`,
			want: []string{"name: must be a string, got number"}},
		{name: "nothing inside a value of the wrong type", raw: `{"name":"a","labels":{"x":1,"y":""}}`,
			want: []string{"labels.x: must be a string, got number", "labels.y: empty"}},
		{name: "big numbers keep their text", raw: `{"name":"a","bogus":1,"count":12345678901234567890}`,
			want: []string{"bogus: unknown field (known fields: count, inner, labels, name)", "count: must be a whole number, got number 12345678901234567890"}},
		{name: "not an object is not validated", raw: `[1]`, want: []string{"must be a JSON object, got a list"}},
		{name: "not JSON is not validated", raw: `{"name":`, want: []string{"not valid JSON: unexpected end of JSON input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c validatedConfig
			err := lux.DecodeConfig(json.RawMessage(tt.raw), &c, c.validate)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, errors.Is(err, lux.ErrInvalidConfig), "%v", err)
			if diff := cmp.Diff(tt.want, problemTexts(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// Every validate given is called, in order, on the decoded value.
func TestDecodeConfigValidatesInOrder(t *testing.T) {
	var c validatedConfig
	var seen []string
	first := func() error { seen = append(seen, "first:"+c.Name); return nil }
	second := func() error {
		seen = append(seen, "second")
		var p lux.Problems
		p.Add("count", "too small")
		return p.Err(lux.ErrInvalidConfig)
	}
	err := lux.DecodeConfig(json.RawMessage(`{"name":"x"}`), &c, first, second)
	require.Equal(t, []string{"count: too small"}, problemTexts(err))
	require.Equal(t, []string{"first:x", "second"}, seen)
}

// An unknown field is a FieldError of Kind ErrUnknownField, which
// errors.Is finds through the config error and which keeps its kind when
// merged under a prefix; other problems are not unknown fields.
func TestUnknownFieldIsTyped(t *testing.T) {
	var c validatedConfig
	err := lux.DecodeConfig(json.RawMessage(`{"name":3,"inner":{"URL":"x"},"count":-1}`), &c, c.validate)
	require.ErrorIs(t, err, lux.ErrInvalidConfig)
	require.ErrorIs(t, err, lux.ErrUnknownField)
	var p lux.Problems
	p.Merge("driver.config", err)
	var unknown []string
	for _, e := range lux.ProblemsOf(p.Err(lux.ErrInvalidCase)) {
		var fe *lux.FieldError
		require.True(t, errors.As(e, &fe), "%v", e)
		if errors.Is(fe, lux.ErrUnknownField) {
			unknown = append(unknown, fe.Path)
		}
	}
	require.Equal(t, []string{"driver.config.inner.URL"}, unknown)

	err = lux.DecodeConfig(json.RawMessage(`{"name":3,"count":-1}`), &c, c.validate)
	require.ErrorIs(t, err, lux.ErrInvalidConfig)
	require.NotErrorIs(t, err, lux.ErrUnknownField, "a value of the wrong type or an invalid one is not an unknown field")

	var ref lux.PluginRef
	require.ErrorIs(t, json.Unmarshal([]byte(`{"name":"x","cfg":{}}`), &ref), lux.ErrUnknownField)
}
