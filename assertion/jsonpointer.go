package assertion

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/jsonerr"
)

// parsePointer splits a JSON pointer (RFC 6901) into its reference tokens:
// "" is the whole document; otherwise it starts with "/", and "~1" stands
// for "/" and "~0" for "~".
func parsePointer(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q must be empty or start with \"/\"", ptr)
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("%q has \"~\" not followed by 0 or 1", ptr)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// checkPointer parses ptr, the JSON pointer of field; one that does not
// parse is a problem of field, with fix.
func checkPointer(field, ptr, fix string, p *lux.Problems) []string {
	tokens, err := parsePointer(ptr)
	if err != nil {
		p.AddFix(field, err.Error(), fix)
	}
	return tokens
}

// checkValue decodes raw, the JSON value of field; a value that is not
// JSON is a problem of field.
func checkValue(field string, raw json.RawMessage, p *lux.Problems) any {
	v, err := decodeJSON(raw)
	if err != nil {
		p.Add(field, jsonerr.NotValid(raw, err))
	}
	return v
}

// resolvePointer finds the value at tokens in a decoded JSON document
// (objects as map[string]any, arrays as []any). Array indexes are decimal
// without leading zeros; "-" and out-of-range indexes resolve to nothing.
func resolvePointer(doc any, tokens []string) (any, bool) {
	cur := doc
	for _, t := range tokens {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[t]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, ok := arrayIndex(t)
			if !ok || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// arrayIndex reads an array index token: "0", or decimal digits without a
// leading zero. Anything else ("-", a sign, "01") names no element.
func arrayIndex(t string) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(t)
	return i, err == nil
}

// decodeJSON decodes b keeping numbers exact (json.Number).
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// generic turns any JSON-encodable value into its decoded JSON form, so a
// typed tool input compares like one read from disk.
func generic(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(b)
}

// jsonEqual compares decoded JSON values: numbers by value, arrays in
// order, objects regardless of key order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	// Exact decimal comparison: 3 equals 3.0 and 30e-1, and integers
	// beyond float64's precision stay distinct.
	ar, aok := new(big.Rat).SetString(string(a))
	br, bok := new(big.Rat).SetString(string(b))
	return aok && bok && ar.Cmp(br) == 0
}

// jsonText is v as compact JSON, for comments and substring matches. <, >
// and & stay as written ("> out.txt", "a && b"), as in the reference system.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

type jsonPointerEqualsConfig struct {
	Path    string          `json:"path"`
	Pointer string          `json:"pointer,omitempty"`
	Value   json.RawMessage `json:"value"`
	In      string          `json:"in,omitempty"`

	tokens []string
	want   any
}

func jsonPointerEquals() *lux.AssertionPlugin {
	return define("json-pointer-equals",
		"Passes when the JSON file at path (at most 10 MiB) holds value at pointer (RFC 6901; \"\" is the whole document).",
		func(c *jsonPointerEqualsConfig, p *lux.Problems) {
			checkIn(&c.In, p)
			checkPath("path", c.Path, c.In, p)
			c.tokens = checkPointer("pointer", c.Pointer, `write a JSON pointer such as "/scripts/test"`, p)
			if c.Value == nil {
				p.AddFix("value", "required", "give the JSON value expected at pointer; null is a value")
			} else {
				c.want = checkValue("value", c.Value, p)
			}
		},
		func(_ context.Context, c *jsonPointerEqualsConfig, run *lux.Run) (lux.Result, error) {
			data, res, err := readFile("json-pointer-equals", run, c.In, c.Path, MaxTextFileBytes)
			if res != nil || err != nil {
				return deref(res), err
			}
			detail := map[string]any{"path": c.Path, "in": c.In, "pointer": c.Pointer, "expected": c.want}
			doc, err := decodeJSON(data)
			if err != nil {
				why := jsonerr.Describe(data, err)
				detail["parseError"] = why
				return Fail(fmt.Sprintf("%q is not valid JSON: %s", c.Path, why), detail), nil
			}
			got, ok := resolvePointer(doc, c.tokens)
			if !ok {
				return Fail(fmt.Sprintf("%q has nothing at pointer %q", c.Path, c.Pointer), detail), nil
			}
			detail["actual"] = got
			if jsonEqual(got, c.want) {
				return Pass(fmt.Sprintf("%q%s = %s", c.Path, c.Pointer, clip(jsonText(got), 120)), detail), nil
			}
			return Fail(fmt.Sprintf("%q%s = %s, want %s", c.Path, c.Pointer, clip(jsonText(got), 120), clip(jsonText(c.want), 120)), detail), nil
		})
}
