package assertion_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		typ, cfg string
		want     []string // the problems, one per line
	}{
		{"file-exists", `{}`, []string{`path: required (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"file-exists", `{"path":"README.md","extra":1}`, []string{`extra: unknown field (known fields: in, path)`}},
		{"file-exists", `{"path":"../x"}`, []string{`path: "../x" escapes the workspace (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"file-exists", `{"path":"a/../../x","in":"run"}`, []string{`path: "a/../../x" escapes the run directory (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"file-exists", `{"path":"/etc/passwd"}`, []string{`path: "/etc/passwd" is absolute (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"file-exists", `{"path":"a\u0000b"}`, []string{`path: "a\x00b" contains a NUL byte (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"file-exists", `{"path":"x","in":"cwd"}`, []string{`in: must be "workspace" or "run", got "cwd" (leave it out for the workspace)`}},
		{"file-exists", `{"path":5}`, []string{`path: must be a string, got number`}},
		{"file-exists", `[]`, []string{`must be a JSON object, got a list`}},
		{"file-contains", `{"path":"a"}`, []string{`text: required (give the text the file must contain)`}},
		{"file-matches", `{"path":"a","pattern":"x","flags":"g"}`, []string{`flags: unknown flag 'g' in "g" (use any of i, m, s: i ignores case, m makes ^ and $ match at line breaks, s lets . match a newline)`}},
		{"file-matches", `{"path":"a","pattern":"a(?=b)"}`, []string{"pattern: not a valid regular expression: invalid or unsupported Perl syntax: `(?=` (use Go RE2 syntax, without backreferences or lookaround)"}},
		{"file-matches", `{"path":"a"}`, []string{`pattern: required (give a Go regular expression, in RE2 syntax)`}},
		{"file-regex-count", `{"path":"a","pattern":"x*"}`, []string{
			`pattern: /x*/ matches the empty string, so it would match at every position (make the pattern match at least one character)`,
			`min: min or max is required (give at least one bound)`}},
		{"file-regex-count", `{"path":"a","pattern":"x","min":0}`, []string{`min: must be above 0 when max is not given (min 0 alone is always true; give max, or min of 1 or more)`}},
		{"file-regex-count", `{"path":"a","pattern":"x","min":3,"max":2}`, []string{`max: must be at least min (3), got 2`}},
		{"file-regex-count", `{"path":"a","pattern":"x","min":-1,"max":-2}`, []string{`min: must not be negative, got -1`, `max: must not be negative, got -2`, `max: must be at least min (-1), got -2`}},
		{"glob-count", `{"glob":"../*","min":1}`, []string{`glob: "../*" climbs out with ".." (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`}},
		{"glob-count", `{"glob":"/abs","max":1}`, []string{`glob: "/abs" is absolute (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`}},
		{"glob-count", `{"glob":"a/**b","min":1}`, []string{`glob: "a/**b": "**" must be a whole path segment (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`}},
		{"glob-count", `{"glob":"{a,b","min":1}`, []string{`glob: "{a,b" has an unclosed "{" (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`}},
		{"glob-count", `{"glob":"[a"}`, []string{
			`glob: "[a": bad segment "[a" (give a slash-separated pattern relative to the workspace, such as "src/**/*.go")`,
			`min: min or max is required (give at least one bound)`}},
		{"json-pointer-equals", `{"path":"a","pointer":"x"}`, []string{
			`pointer: "x" must be empty or start with "/" (write a JSON pointer such as "/scripts/test")`,
			`value: required (give the JSON value expected at pointer; null is a value)`}},
		{"json-pointer-equals", `{"path":"a","pointer":"/a~2","value":1}`, []string{`pointer: "/a~2" has "~" not followed by 0 or 1 (write a JSON pointer such as "/scripts/test")`}},
		{"command-exits-zero", `{"timeout":"soon","inheritEnv":"PATH"}`, []string{
			`inheritEnv: must be a list of variable names, or true for the whole environment`,
			`timeout: must be a duration such as "90s" or a number of milliseconds, got "soon"`,
			`command: required (give a shell command such as "go test ./...")`}},
		// A misspelled field hides none of the other problems.
		{"file-contains", `{"pth":"a.txt","text":"hi"}`, []string{
			`pth: unknown field (did you mean "path"?)`,
			`path: required (give a path relative to the workspace, or to the run directory with "in": "run")`}},
		{"regex", `{"pattern":"(","flag":"i"}`, []string{
			`flag: unknown field (did you mean "flags"?)`,
			"pattern: not a valid regular expression: missing closing ): `(` (use Go RE2 syntax, without backreferences or lookaround)"}},
		{"command-exits-zero", `{"comand":"true","timeout":-5}`, []string{
			`comand: unknown field (did you mean "command"?)`,
			`command: required (give a shell command such as "go test ./...")`,
			`timeout: must not be negative, got -5ms`}},
		{"command-exits-zero", `{"command":" ","timeout":-5,"cwd":"../x","env":{"A=B":"x"},"inheritEnv":[""]}`, []string{
			`command: required (give a shell command such as "go test ./...")`,
			`cwd: "../x" escapes the workspace (give a path relative to the workspace, or to the run directory with "in": "run")`,
			`env: "A=B" is not a variable name`,
			`inheritEnv[0]: "" is not a variable name`,
			`timeout: must not be negative, got -5ms`}},
		{"contains", `{"against":"transcript"}`, []string{
			`text: required (give the text to look for)`,
			`against: must be "transcript-final" or "transcript-all", got "transcript" (leave it out for the agent's final message)`}},
		{"not-contains", `{"text":""}`, []string{`text: required (give the text to look for)`}},
		{"regex", `{"pattern":"(a)\\1"}`, []string{"pattern: not a valid regular expression: invalid escape sequence: `\\1` (use Go RE2 syntax, without backreferences or lookaround)"}},
		{"tool-called", `{}`, []string{`tool: required (name the tool in "tool"; "name" is the assertion's display name)`}},
		{"tool-called", `{"tool":"Bash","by":"sub","minTimes":3,"maxTimes":1}`, []string{
			`maxTimes: must be at least minTimes (3), got 1`,
			`by: must be "any", "main" or "subagent", got "sub" (leave it out to count calls by any agent)`}},
		{"tool-call-count", `{"tool":"Bash"}`, []string{`min: min or max is required (give at least one bound)`}},
		{"tool-called-with", `{"tool":"Bash","argsValue":1,"argsContains":"x","minTimes":0,"argsJsonPointer":"cmd"}`, []string{
			`argsJsonPointer: "cmd" must be empty or start with "/" (write a JSON pointer into the tool's input such as "/command")`,
			`argsContains: cannot be combined with argsValue (keep one of them)`,
			`minTimes: must be at least 1, got 0 (to require no such call, use tool-call-count with max 0)`}},
		{"tool-called-with", `{"tool":"Bash","argsContains":""}`, []string{`argsContains: must not be empty (leave it out to match every call of the tool)`}},
		{"interrupt-count", `{"kind":"question","max":1}`, []string{`kind: must be "ask", "approve" or "custom", got "question" (leave it out to count interrupts of every kind)`}},
		{"latency-under", `{}`, []string{`max: must be above zero, got 0s (give a duration such as "5m")`}},
		{"latency-under", `{"max":"1x"}`, []string{`max: must be a duration such as "90s" or a number of milliseconds, got "1x"`}},
		{"tokens-under", `{"component":"all","onUnavailable":"skip"}`, []string{
			`max: required (give the most tokens allowed)`,
			`component: must be one of total, input, output, cacheRead, cacheCreation, got "all"`,
			`onUnavailable: must be "pass" or "fail", got "skip" (leave it out to pass when the measure is unavailable)`}},
		{"cost-under", `{"maxUsd":-1}`, []string{`maxUsd: must not be negative, got -1`}},
		{"cost-under", `{}`, []string{`maxUsd: required (give the most US dollars the agent may spend)`}},
		{"artifact-bytes-under", `{"max":"big"}`, []string{`max: must be a whole number, got string`}},
		{"artifact-bytes-under", `{"max":-1}`, []string{`max: must not be negative, got -1`}},
		{"run-succeeded", `{"x":1}`, []string{`x: unknown field (this config takes no fields)`}},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.cfg, func(t *testing.T) {
			_, err := plugin(t, tt.typ).Parse(json.RawMessage(tt.cfg))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !errors.Is(err, lux.ErrInvalidConfig) {
				t.Errorf("error %v does not wrap lux.ErrInvalidConfig", err)
			}
			var got []string
			for _, e := range lux.ProblemsOf(err) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(tt.want) == 1 && err.Error() != "lux: invalid config: "+tt.want[0] {
				t.Errorf("Error() = %q", err)
			}
		})
	}
}

func TestValidConfigs(t *testing.T) {
	valid := map[string][]string{
		"run-succeeded":        {``, `{}`, `null`},
		"file-exists":          {`{"path":"a/b.txt","in":"run"}`, `{"path":"a/../b"}`},
		"glob-count":           {`{"glob":"**/*.{go,mod}","min":0,"max":0}`},
		"json-pointer-equals":  {`{"path":"p.json","value":null}`, `{"path":"p.json","pointer":"/a/0","value":{"x":[1]}}`},
		"command-exits-zero":   {`{"command":"true","inheritEnv":true,"timeout":1500}`, `{"command":"true","inheritEnv":["GOPATH"],"env":{"X":"1"},"timeout":"10s","cwd":"sub"}`},
		"tool-called":          {`{"tool":"Bash","maxTimes":0}`},
		"tool-called-with":     {`{"tool":"Bash","argsJsonPointer":"/command","argsValue":"ls"}`, `{"tool":"Bash","argsContains":"go test"}`},
		"tokens-under":         {`{"max":0}`, `{"max":1000,"component":"cacheRead","onUnavailable":"fail"}`},
		"cost-under":           {`{"maxUsd":0.5,"onUnavailable":"pass"}`},
		"artifact-bytes-under": {`{"max":1048576}`},
		"latency-under":        {`{"max":90000}`, `{"max":"90s"}`},
		"interrupt-count":      {`{"kind":"approve","min":1}`},
		"regex":                {`{"pattern":"(?i)done","against":"transcript-all"}`},
	}
	for typ, cfgs := range valid {
		for _, cfg := range cfgs {
			t.Run(typ+" "+cfg, func(t *testing.T) { parse(t, typ, cfg) })
		}
	}
}

func TestAllAndRegister(t *testing.T) {
	want := []string{
		"run-succeeded", "file-exists", "file-contains", "file-matches", "file-regex-count", "file-regex-set", "glob-count",
		"json-pointer-equals", "command-exits-zero", "contains", "not-contains", "regex", "tool-called",
		"tool-call-count", "tool-called-with", "tool-invocation", "tool-result-is-error", "tool-result-contains",
		"tool-result-json-pointer-equals", "no-error-results", "interrupt-count", "latency-under", "tokens-under", "cost-under",
		"artifact-bytes-under",
	}
	var got []string
	for _, p := range assertion.All() {
		got = append(got, p.Type)
		if p.Version == "" || p.Doc == "" || p.Parse == nil {
			t.Errorf("%s: Version, Doc and Parse must be set", p.Type)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("All() types = %v", got)
	}

	reg := lux.NewRegistry()
	if err := assertion.Register(reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Assertions()) != len(want) {
		t.Errorf("registered %d, want %d", len(reg.Assertions()), len(want))
	}
	err := assertion.Register(reg)
	if !errors.Is(err, lux.ErrDuplicatePlugin) {
		t.Errorf("second Register = %v, want ErrDuplicatePlugin", err)
	}

	// A registry with one type taken gets none of the built-ins.
	reg = lux.NewRegistry()
	if err := reg.RegisterAssertion(assertion.Predicate("regex", nil)); err != nil {
		t.Fatal(err)
	}
	if err := assertion.Register(reg); !errors.Is(err, lux.ErrDuplicatePlugin) || !strings.Contains(err.Error(), `"regex"`) {
		t.Errorf("Register over a taken type = %v", err)
	}
	if got := reg.Assertions(); len(got) != 1 {
		t.Errorf("registered %v after a refused Register", got)
	}
}
