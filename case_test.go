package lux_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
)

// problems returns the individual problem messages of err.
func problems(err error) []string {
	var out []string
	for _, e := range lux.ProblemsOf(err) {
		out = append(out, e.Error())
	}
	return out
}

func TestCaseValidate(t *testing.T) {
	tests := []struct {
		name string
		c    lux.Case
		want []string
	}{
		{
			name: "valid",
			c:    lux.Case{Prompt: "write hello.txt", Assertions: []lux.AssertionSpec{{Type: "file-exists"}}},
		},
		{
			name: "missing prompt",
			c:    lux.Case{Prompt: "  "},
			want: []string{"prompt: required (say what the agent should do)"},
		},
		{
			name: "every problem at once",
			c: lux.Case{
				ID: "../escape",
				Assertions: []lux.AssertionSpec{
					{ID: "tests-pass", Type: "command-exits-zero"},
					{Type: ""},
					{ID: "tests-pass", Type: "file-exists", Weight: -1, Threshold: 1.5},
				},
				Driver:   &lux.PluginRef{},
				Tags:     []string{""},
				Requires: []lux.Capability{""},
			},
			want: []string{
				"prompt: required (say what the agent should do)",
				`id: "../escape" is not a usable id (use letters, digits, '-', '_' and '/' between names)`,
				"driver.name: required (name a registered plugin)",
				`assertions[1].type: required (name an assertion type such as "file-exists")`,
				`assertions[2].id: duplicate id "tests-pass" (assertions[0] has it too; give each assertion its own id)`,
				"assertions[2].weight: must be positive, got -1 (leave it out for weight 1)",
				"assertions[2].threshold: must be between 0 and 1, got 1.5",
				"tags[0]: must not be empty",
				"requires[0]: must not be empty",
			},
		},
		{
			name: "negative budget",
			c:    lux.Case{Prompt: "p", MaxTokens: -1, MaxCostUSD: -0.5},
			want: []string{
				"maxTokens: must be positive, got -1 (give the most tokens a run may spend, or leave it out)",
				"maxCostUsd: must be a positive number of US dollars, got -0.5 (give the most a run may cost, or leave it out)",
			},
		},
		{
			name: "default ids collide",
			c: lux.Case{Prompt: "p", Assertions: []lux.AssertionSpec{
				{Type: "run-succeeded"}, {ID: "run-succeeded:1", Type: "file-exists"},
			}},
			want: []string{`assertions[1].id: duplicate id "run-succeeded:1" (assertions[0] has it too; give each assertion its own id)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.want != nil && !errors.Is(err, lux.ErrInvalidCase) {
				t.Errorf("error %v does not wrap ErrInvalidCase", err)
			}
		})
	}
}

func TestParseCaseStrict(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string
	}{
		{
			name: "unknown fields named with the known ones",
			json: `{"prompt":"p","driverConfig":{},"tagz":["a"]}`,
			want: []string{
				"driverConfig: unknown field (known fields: answerer, assertions, cluster, driver, fixtures, id, maxCostUsd, maxTokens, meta, persona, prompt, requires, tags, timeout)",
				`tagz: unknown field (did you mean "tags"?)`,
			},
		},
		{
			name: "near miss suggests the field",
			json: `{"Prompt":"p"}`,
			want: []string{`Prompt: unknown field (did you mean "prompt"?)`},
		},
		{
			name: "wrong types, all named",
			json: `{"prompt":3,"tags":"x"}`,
			want: []string{"prompt: must be a string, got number", "tags: must be a list, got string"},
		},
		{
			name: "plugin ref strict",
			json: `{"prompt":"p","driver":{"name":"x","cfg":{}}}`,
			want: []string{`driver.cfg: unknown field (known fields: name, config)`},
		},
		{
			name: "every problem at once, each at its path",
			json: `{"prompt":"p","promt":"x","tags":"smoke","answerer":{"name":3},"assertions":[{"type":"a"},{"type":"b"},{"type":"c"},{"type":"d","weight":"heavy","threshold":[]}]}`,
			want: []string{
				"promt: unknown field (did you mean \"prompt\"?)",
				"answerer.name: must be a string, got number",
				"assertions[3].threshold: must be a number, got array",
				"assertions[3].weight: must be a number, got string",
				"tags: must be a list, got string",
			},
		},
		{
			name: "two cases in one file, the second named where it starts",
			json: "{\"prompt\":\"a\"}\n{\"prompt\":\"b\"}\n",
			want: []string{"not valid JSON at line 2, column 1: invalid character '{' after top-level value"},
		},
		{
			name: "not an object",
			json: `[1]`,
			want: []string{"must be a JSON object, got a list"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lux.ParseCase([]byte(tt.json))
			if diff := cmp.Diff(tt.want, problems(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCaseRoundTrip(t *testing.T) {
	in := `{
	  "id": "greet",
	  "prompt": "write hello.txt",
	  "driver": {"name": "subprocess", "config": {"command": "agent"}},
	  "answerer": "scripted",
	  "fixtures": "fixtures/greet",
	  "assertions": [
	    {"type": "file-contains", "id": "hello", "path": "hello.txt", "text": "hi", "weight": 2, "threshold": 0.5}
	  ],
	  "tags": ["smoke"], "cluster": "greetings", "requires": ["ask"], "meta": {"owner": "me"}
	}`
	c, err := lux.ParseCase([]byte(in))
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	want := lux.AssertionSpec{ID: "hello", Type: "file-contains", Weight: 2, Threshold: 0.5,
		Config: map[string]any{"path": "hello.txt", "text": "hi"}}
	if diff := cmp.Diff(want, c.Assertions[0]); diff != "" {
		t.Errorf("assertion (-want +got):\n%s", diff)
	}
	require.Equal(t, "scripted", c.Answerer.Name)
	raw, err := lux.ConfigJSON(c.Driver.Config)
	require.NoError(t, err)
	require.JSONEq(t, `{"command":"agent"}`, string(raw))
	require.Equal(t, []lux.Capability{lux.CanAsk}, c.Requires)

	// Hashes of the case are stable across a JSON round trip.
	h1, err := digest.Value(c)
	require.NoError(t, err)
	again, err := lux.ParseCase(mustJSON(t, c))
	require.NoError(t, err)
	h2, err := digest.Value(again)
	require.NoError(t, err)
	require.Equal(t, h1, h2)
}

func TestLoadCaseNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broken.case.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"prompt":"","assertions":[{"type":"x","id":"a"},{"type":"y","id":"a"}]}`), 0o600))
	_, err := lux.ReadCase(path, (*lux.Case).Validate)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{path, "prompt: required", `assertions[1].id: duplicate id "a"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}

	good := filepath.Join(dir, "greet.case.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"prompt":"hi","fixtures":"fx"}`), 0o600))
	c, err := lux.ReadCase(good, (*lux.Case).Validate)
	require.NoError(t, err)
	require.Equal(t, "greet", c.CanonicalID())
	require.Equal(t, filepath.Join(dir, "fx"), c.FixturesDir())
}

func TestAssertionSpecDefaults(t *testing.T) {
	s := lux.AssertionSpec{Type: "file-contains", Config: map[string]any{"path": "a.txt", "min": 2.0}}
	require.Equal(t, "file-contains:3", s.EffectiveID(2))
	require.Equal(t, 1.0, s.EffectiveWeight())
	require.Equal(t, "file-contains min=2 path=a.txt", s.DisplayName())
}

func TestParseCaseValidatesInTheSamePass(t *testing.T) {
	_, err := lux.ParseCase([]byte(`{"promt": "hi", "prompt": 7, "weight": 1, "assertions": [{"type": ""}]}`), (*lux.Case).Validate)
	require.ErrorIs(t, err, lux.ErrInvalidCase)
	var paths []string
	for _, e := range lux.ProblemsOf(err) {
		var fe *lux.FieldError
		require.ErrorAs(t, e, &fe)
		paths = append(paths, fe.Path+": "+fe.Problem)
	}
	// prompt is reported once, as the wrong type, not again as missing.
	require.Equal(t, []string{
		`promt: unknown field`,
		`weight: unknown field`,
		`prompt: must be a string, got number`,
		`assertions[0].type: required`,
	}, paths)

	c, err := lux.ParseCase([]byte(`{"prompt": "hi"}`), (*lux.Case).Validate)
	require.NoError(t, err)
	require.Equal(t, "hi", c.Prompt)
	_, err = lux.ParseCase([]byte(`{"promt": "hi"}`))
	require.Len(t, lux.ProblemsOf(err), 1, "without validate functions only the JSON is checked")
}
