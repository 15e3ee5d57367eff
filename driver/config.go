package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/luxeval/lux"
)

// ParseConfig decodes raw into dst, a pointer to a config struct holding
// the defaults, strictly (see lux.DecodeConfig), then calls validate, and
// returns every problem at once: unknown fields, values of the wrong type
// and the problems validate finds in the values that did decode. A user
// who misspells one field and gives another a bad value learns about both
// in one go. validate's problems at the path of a value that did not
// decode are left out: "must be a string" says it already. The error is
// nil or wraps lux.ErrInvalidConfig with one lux.FieldError per problem.
func ParseConfig(raw json.RawMessage, dst any, validate func() error) error {
	err := lux.DecodeConfig(raw, dst)
	if err != nil && !errors.Is(err, lux.ErrInvalidConfig) {
		return err // dst is not a pointer: a bug of the caller
	}
	found := lux.Unwrap(err)
	if err != nil {
		// lux.DecodeConfig decodes nothing when a field is unknown:
		// decode the known ones, for their own problems and validation.
		if known, ok := knownFields(raw, reflect.TypeOf(dst)); ok {
			found = append(found, lux.Unwrap(lux.DecodeConfig(known, dst))...)
		}
	}
	var p lux.Problems
	var bad []string
	for _, e := range found {
		p.Merge("", e)
		var fe *lux.FieldError
		if errors.As(e, &fe) {
			bad = append(bad, fe.Path)
		}
	}
	if validate != nil && !contains(bad, "") {
		for _, e := range lux.Unwrap(validate()) {
			var fe *lux.FieldError
			if errors.As(e, &fe) && under(fe.Path, bad) {
				continue
			}
			p.Merge("", e)
		}
	}
	return p.Err(lux.ErrInvalidConfig)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// knownFields returns raw without the object keys that t (a struct, or a
// pointer to one) does not declare, at every depth; ok is false when
// nothing was left out or raw is not a JSON object.
func knownFields(raw json.RawMessage, t reflect.Type) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their exact text
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if _, isObject := v.(map[string]any); !isObject {
		return nil, false
	}
	if !dropUnknown(v, t) {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// dropUnknown deletes from v, in place, the object keys that t does not
// declare (json tags matched exactly, as lux.DecodeConfig does), and
// reports whether it deleted any.
func dropUnknown(v any, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	dropped := false
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		fields := jsonFields(t)
		for k, x := range obj {
			ft, known := fields[k]
			if !known {
				delete(obj, k)
				dropped = true
				continue
			}
			dropped = dropUnknown(x, ft) || dropped
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range list {
			dropped = dropUnknown(x, t.Elem()) || dropped
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, x := range obj {
			dropped = dropUnknown(x, t.Elem()) || dropped
		}
	}
	return dropped
}

// jsonFields maps the JSON names of t's fields to their types, following
// embedded structs the way encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
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
				out[name] = f.Type
			}
		}
	}
	walk(t)
	return out
}
