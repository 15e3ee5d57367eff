package lux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux/internal/jsonerr"
	"github.com/luxeval/lux/internal/naming"
)

// DecodeConfig decodes a plugin's JSON config into dst (a pointer to a
// struct already holding the defaults), strictly, then calls each validate
// on the decoded value, and reports every problem at once: each field that
// dst does not declare (with the fields that are known), each value of the
// wrong type, and what validate finds in the values that did decode. A
// user who misspells one field and gives another a bad value learns about
// both in one go. Field names match the struct's json tags exactly. An
// empty or null raw leaves dst unchanged (and is still validated).
//
// A problem validate reports at the path of a value that did not decode
// is left out ("must be a string" says it already), and validate is not
// called when raw is not a JSON object at all.
//
// validate runs after decoding, so it must read dst itself: a closure over
// the variable, or a method value of a pointer receiver (cfg.Validate with
// func (c *Config) Validate() error). A method value of a value receiver
// is bound to a copy of the config made before anything was decoded.
//
// The returned error is nil or wraps ErrInvalidConfig and carries one
// FieldError per problem (see ProblemsOf), with paths relative to the
// config. An unknown field's FieldError has Kind ErrUnknownField, so
// errors.Is(err, ErrUnknownField) tells a config with a typo in it.
func DecodeConfig(raw json.RawMessage, dst any, validate ...func() error) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("lux: DecodeConfig needs a non-nil pointer, got %T", dst)
	}
	var probs Problems
	bad, whole := decodeStrict(&probs, raw, rv)
	if whole {
		return probs.Err(ErrInvalidConfig)
	}
	for _, v := range validate {
		for _, e := range ProblemsOf(v()) {
			var fe *FieldError
			if errors.As(e, &fe) && under(fe.Path, bad) {
				continue
			}
			probs.Merge("", e)
		}
	}
	return probs.Err(ErrInvalidConfig)
}

// decodeStrict decodes raw into rv's element, recording every problem in
// probs. It returns the paths whose values did not decode, and whether the
// config as a whole did not (not JSON, or not an object for a struct).
func decodeStrict(probs *Problems, raw json.RawMessage, rv reflect.Value) (bad []string, whole bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false
	}
	generic, err := decodeGeneric(raw)
	if err != nil {
		probs.Add("", jsonerr.NotValid(raw, err))
		return nil, true
	}
	if rv.Elem().Kind() == reflect.Struct {
		if _, ok := generic.(map[string]any); !ok {
			probs.Addf("", "must be a JSON object, got %s", jsonKind(generic))
			return nil, true
		}
	}
	var p Problems
	checkUnknown(&p, "", generic, rv.Type().Elem())
	decodeValue(&p, "", raw, rv.Elem())
	for _, e := range p.errs {
		probs.Merge("", e)
		var fe *FieldError
		if errors.As(e, &fe) {
			if fe.Path == "" {
				whole = true
			}
			bad = append(bad, fe.Path)
		}
	}
	return bad, whole
}

// under reports whether path is one of paths or inside one of them.
func under(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

// decodeValue decodes raw into v, recording every value of the wrong type
// at its path (fields of structs, elements of lists, values of maps), and
// the error of a type that decodes itself under its own path. Unknown
// fields are left to checkUnknown.
func decodeValue(p *Problems, path string, raw json.RawMessage, v reflect.Value) {
	t := v.Type()
	if t != rawMessageType && t.Kind() != reflect.Interface && !reflect.PointerTo(t).Implements(unmarshalerType) {
		switch t.Kind() {
		case reflect.Pointer:
			if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				v.SetZero()
				return
			}
			if v.IsNil() {
				v.Set(reflect.New(t.Elem()))
			}
			decodeValue(p, path, raw, v.Elem())
			return
		case reflect.Struct:
			var fields map[string]json.RawMessage
			if json.Unmarshal(raw, &fields) == nil && fields != nil {
				index := fieldIndex(t)
				for _, name := range sortedKeys(fields) {
					if idx, ok := index[name]; ok {
						decodeValue(p, naming.Join(path, name), fields[name], fieldByIndexAlloc(v, idx))
					}
				}
				return
			}
		case reflect.Slice:
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) == nil && items != nil {
				out := reflect.MakeSlice(t, len(items), len(items))
				for i, item := range items {
					decodeValue(p, fmt.Sprintf("%s[%d]", path, i), item, out.Index(i))
				}
				v.Set(out)
				return
			}
		case reflect.Map:
			var items map[string]json.RawMessage
			if t.Key().Kind() == reflect.String && json.Unmarshal(raw, &items) == nil && items != nil {
				if v.IsNil() {
					v.Set(reflect.MakeMapWithSize(t, len(items)))
				}
				for _, k := range sortedKeys(items) {
					elem := reflect.New(t.Elem()).Elem()
					decodeValue(p, naming.Join(path, k), items[k], elem)
					v.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), elem)
				}
				return
			}
		}
	}
	if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || len(ProblemsOf(err)) > 1 {
			p.Merge(path, err)
			return
		}
		p.Add(path, typeProblem(err))
	}
}

// fieldByIndexAlloc is v.FieldByIndex, allocating nil embedded pointers
// on the way.
func fieldByIndexAlloc(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// decodeGeneric decodes raw into maps, lists and json.Numbers (so that
// numbers beyond float64's range are still valid JSON here), refusing
// anything after the value.
func decodeGeneric(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("unexpected end of JSON input")
		}
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		// encoding/json's own validity check names the first byte after
		// the value and where it is, as a *json.SyntaxError.
		if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
			return nil, err
		}
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// typeProblem turns a json decoding error into a readable problem.
func typeProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("must be %s, got %s", typeName(te.Type), te.Value)
	}
	return jsonerr.Of(err).Text
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// jsonValueKind names the JSON type of v (decoded into any) as
// encoding/json's type errors do: "string", "number", "bool", "array",
// "object" or "null".
func jsonValueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	}
	return "object"
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	default:
		return "an object"
	}
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// checkUnknown walks the decoded JSON value v against type t and records
// every object key that t does not declare.
func checkUnknown(p *Problems, path string, v any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return // type problems are reported by decoding
		}
		index := fieldIndex(t)
		for _, key := range sortedKeys(obj) {
			idx, known := index[key]
			if !known {
				p.addUnknown(naming.Join(path, key), knownFieldsHint(key, index))
				continue
			}
			checkUnknown(p, naming.Join(path, key), obj[key], t.FieldByIndex(idx).Type)
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			return
		}
		for i, item := range list {
			checkUnknown(p, fmt.Sprintf("%s[%d]", path, i), item, t.Elem())
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, key := range sortedKeys(obj) {
			checkUnknown(p, naming.Join(path, key), obj[key], t.Elem())
		}
	}
}

func knownFieldsHint(key string, index map[string][]int) string {
	names := make([]string, 0, len(index))
	for n := range index {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return fmt.Sprintf("did you mean %q?", n)
		}
	}
	// One or two letters off (a typo, not another word): suggest the
	// closest field.
	best, bestDist, ties := "", 3, 0
	for _, n := range names {
		d := naming.EditDistance(strings.ToLower(n), strings.ToLower(key))
		switch {
		case d >= len(n):
		case d < bestDist:
			best, bestDist, ties = n, d, 1
		case d == bestDist:
			ties++
		}
	}
	if best != "" && ties == 1 {
		return fmt.Sprintf("did you mean %q?", best)
	}
	if len(names) == 0 {
		return "this config takes no fields"
	}
	return "known fields: " + strings.Join(names, ", ")
}

// fieldIndexes caches fieldIndex by type: the maps are only read.
var fieldIndexes sync.Map // reflect.Type → map[string][]int

// fieldIndex maps the JSON names of t's fields (following embedded
// structs the way encoding/json does) to their indexes. The map is shared:
// callers only read it.
func fieldIndex(t reflect.Type) map[string][]int {
	if m, ok := fieldIndexes.Load(t); ok {
		return m.(map[string][]int)
	}
	m, _ := fieldIndexes.LoadOrStore(t, buildFieldIndex(t))
	return m.(map[string][]int)
}

// buildFieldIndex is fieldIndex uncached.
func buildFieldIndex(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), prefix...), i)
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := out[name]; !dup {
				out[name] = idx
			}
		}
	}
	walk(t, nil)
	return out
}

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("90s", "2m30s") or as a number of milliseconds, and writes as a string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string or a number of milliseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("must be a duration such as \"90s\" or a number of milliseconds, got %q", s)
		}
		*d = Duration(v)
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("must be a duration such as \"90s\" or a number of milliseconds, got %s", b)
	}
	const limit = float64(math.MaxInt64 / int64(time.Millisecond))
	if ms > limit || ms < -limit {
		return fmt.Errorf("must be at most %v, got %s milliseconds", time.Duration(math.MaxInt64), b)
	}
	*d = Duration(ms * float64(time.Millisecond))
	return nil
}

// ConfigJSON returns v as the raw JSON config a plugin decodes: a
// json.RawMessage or []byte is returned as is, nil becomes empty, and any
// other value (a map, or a plugin's own config struct) is marshalled.
func ConfigJSON(v any) (json.RawMessage, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return c, nil
	case []byte:
		return json.RawMessage(c), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("lux: config is not JSON-encodable: %w", err)
	}
	return b, nil
}
