package assertion_test

import "testing"

// RFC 6901: an array index is 0 or digits without a leading zero; nothing
// else (a sign, "-", spaces) names an element.
func TestJSONPointerArrayIndexes(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "index 0", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/0","value":"a"}`, pass: true},
		{name: "plus sign", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/+1","value":"b"}`,
			comment: `"data.json" has nothing at pointer "/tags/+1"`},
		{name: "minus zero", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/-0","value":"a"}`,
			comment: `"data.json" has nothing at pointer "/tags/-0"`},
		{name: "past the end", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/-","value":"a"}`,
			comment: `"data.json" has nothing at pointer "/tags/-"`},
		{name: "leading zero", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/00","value":"a"}`,
			comment: `"data.json" has nothing at pointer "/tags/00"`},
		{name: "huge index", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/99999999999999999999999","value":"a"}`,
			comment: `"data.json" has nothing at pointer "/tags/99999999999999999999999"`},
		{name: "empty token on an object is the key \"\"", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/","value":1}`,
			comment: `"data.json" has nothing at pointer "/"`},
	})
}
