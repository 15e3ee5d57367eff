package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	Tags []string `json:"tags"`
}

type doc struct {
	Count int   `json:"count"`
	Inner inner `json:"inner"`
}

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no form for this") }

func TestOfDecodeErrors(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		strict   bool
		want     Problem
		describe string
	}{
		{name: "syntax", input: "{\n  \"count\": x}", want: Problem{Kind: Syntax, Offset: 14,
			Text: "invalid character 'x' looking for beginning of value"},
			describe: "at line 2, column 12: invalid character 'x' looking for beginning of value"},
		{name: "truncated", input: `{"count": 1`, want: Problem{Kind: Truncated, Offset: 11, Text: "unexpected end of JSON input"},
			describe: "unexpected end of JSON input"},
		{name: "empty", input: ``, want: Problem{Kind: Truncated, Text: "unexpected end of JSON input"},
			describe: "unexpected end of JSON input"},
		{name: "wrong type", input: `{"count": "three"}`, want: Problem{Kind: Type, Offset: 17, Field: "count", Want: "int", Got: "string",
			Text: "count must be int, got JSON string"}, describe: "count must be int, got JSON string"},
		{name: "wrong type deep", input: `{"inner": {"tags": [1]}}`, want: Problem{Kind: Type, Offset: 21, Field: "inner.tags", Want: "string", Got: "number",
			Text: "inner.tags must be string, got JSON number"}, describe: "inner.tags must be string, got JSON number"},
		{name: "wrong type at the top", input: `[1]`, want: Problem{Kind: Type, Offset: 1, Want: "jsonerr.doc", Got: "array",
			Text: "must be jsonerr.doc, got JSON array"}, describe: "must be jsonerr.doc, got JSON array"},
		{name: "unknown field", input: `{"cont": 1}`, strict: true, want: Problem{Text: `unknown field "cont"`},
			describe: `unknown field "cont"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			var err error
			if tt.strict {
				dec := json.NewDecoder(bytes.NewReader([]byte(tt.input)))
				dec.DisallowUnknownFields()
				err = dec.Decode(&d)
			} else {
				err = json.Unmarshal([]byte(tt.input), &d)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, Of(err)); diff != "" {
				t.Errorf("Of(%v) (-want +got):\n%s", err, diff)
			}
			if got := Describe([]byte(tt.input), err); got != tt.describe {
				t.Errorf("Describe = %q, want %q", got, tt.describe)
			}
		})
	}
}

func TestOfDecoderEnd(t *testing.T) {
	var d doc
	err := json.NewDecoder(bytes.NewReader([]byte(`{"count": 1`))).Decode(&d)
	if p := Of(err); p.Kind != Truncated {
		t.Errorf("a decoder's %v gives %+v, want Truncated", err, p)
	}
}

func TestOfEncodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  Problem
	}{
		{"channel", map[string]any{"c": make(chan int)}, Problem{Kind: Unencodable, Text: "unsupported type: chan int"}},
		{"NaN", []float64{math.NaN()}, Problem{Kind: Unencodable, Text: "unsupported value: NaN"}},
		{"MarshalJSON fails", []any{failing{}}, Problem{Text: "no form for this"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := json.Marshal(tt.value)
			if diff := cmp.Diff(tt.want, Of(err)); diff != "" {
				t.Errorf("Of(%v) (-want +got):\n%s", err, diff)
			}
		})
	}
}

func TestOfOtherErrors(t *testing.T) {
	if p := Of(errors.New("disk on fire")); p != (Problem{Text: "disk on fire"}) {
		t.Errorf("a foreign error gives %+v", p)
	}
	if p := Of(nil); p != (Problem{}) {
		t.Errorf("nil gives %+v", p)
	}
}

func TestPositionOutsideData(t *testing.T) {
	p := Problem{Kind: Syntax, Offset: 99}
	if got := p.Position([]byte("{}")); got != "" {
		t.Errorf("an offset past the data gives %q", got)
	}
}
