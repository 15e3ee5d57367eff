package luxtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/luxeval/lux"
)

// UnknownField is the field the conformance checks add to a config to see
// that a plugin's Parse rejects fields it does not know.
const UnknownField = "luxtestUnknownField"

// withUnknownField returns base with UnknownField added, or false when
// base is not a JSON object (nor empty).
func withUnknownField(base json.RawMessage) (json.RawMessage, bool) {
	trimmed := bytes.TrimSpace(base)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage(`{"` + UnknownField + `": true}`), true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(trimmed, &obj) != nil || obj == nil {
		return nil, false
	}
	obj[UnknownField] = json.RawMessage("true")
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return b, true
}

// isObjectWithFields reports whether raw is a JSON object with at least
// one field.
func isObjectWithFields(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && len(obj) > 0
}

// checkStrict checks that parse decodes strictly: a config with an unknown
// field, a config that is not an object and one that is not JSON are each
// rejected with an error wrapping lux.ErrInvalidConfig, and the unknown
// field is named in the error.
func (c *checker) checkStrict(base json.RawMessage, parse func(json.RawMessage) error) {
	const fix = "lux.DecodeConfig names every unknown field"
	if raw, ok := withUnknownField(base); ok {
		fl, err := guardErr(c.timeout, func() error { return parse(raw) })
		switch {
		case fl != "":
			c.add("parse-unknown-field", "Parse(%s) %s", raw, fl)
		case err == nil:
			c.add("parse-unknown-field", "Parse accepted the unknown field %q in %s; want an error wrapping lux.ErrInvalidConfig; %s", UnknownField, raw, fix)
		case !errors.Is(err, lux.ErrInvalidConfig):
			c.add("parse-unknown-field", "Parse rejected the unknown field %q, but its error does not wrap lux.ErrInvalidConfig: %v", UnknownField, err)
		case !strings.Contains(err.Error(), UnknownField):
			c.add("parse-unknown-field", "Parse rejected the unknown field %q without naming it: %v", UnknownField, err)
		}
	}
	for _, bad := range []struct{ raw, what string }{
		{`"` + UnknownField + `"`, "a config that is a string, not an object"},
		{`{"`, "a config that is not valid JSON"},
	} {
		fl, err := guardErr(c.timeout, func() error { return parse(json.RawMessage(bad.raw)) })
		switch {
		case fl != "":
			c.add("parse-invalid", "Parse(%s) %s", bad.raw, fl)
		case err == nil:
			c.add("parse-invalid", "Parse accepted %s (%s); want an error wrapping lux.ErrInvalidConfig", bad.what, bad.raw)
		case !errors.Is(err, lux.ErrInvalidConfig):
			c.add("parse-invalid", "Parse rejected %s (%s), but its error does not wrap lux.ErrInvalidConfig: %v", bad.what, bad.raw, err)
		}
	}
}

// checkConfigJSON checks that a parsed config encodes as JSON (its hash is
// part of every run's provenance), that the encoding says something when
// the raw config did, and that parsing the same raw config again gives the
// same encoding.
func (c *checker) checkConfigJSON(raw json.RawMessage, cfg any, reparse func() (any, error)) {
	canon, fl, err := guard(c.timeout, func() ([]byte, error) { return lux.CanonicalJSON(cfg) })
	switch {
	case fl != "":
		c.add("config-json", "encoding the parsed config %s", fl)
		return
	case err != nil:
		c.add("config-json", "the parsed config (%T) does not encode as JSON, and its hash is part of every run's provenance: %v", cfg, err)
		return
	}
	if (string(canon) == "{}" || string(canon) == "null") && isObjectWithFields(raw) {
		c.add("config-json", "the parsed config (%T) encodes as %s although %s sets fields, so every config would have the same provenance hash; give its fields exported JSON names",
			cfg, canon, raw)
	}
	again, fl, err := guard(c.timeout, func() ([]byte, error) {
		v, err := reparse()
		if err != nil {
			return nil, err
		}
		return lux.CanonicalJSON(v)
	})
	switch {
	case fl != "":
		c.add("config-json", "parsing the config a second time %s", fl)
	case err != nil:
		c.add("config-json", "parsing the same config a second time failed: %v", err)
	case !bytes.Equal(canon, again):
		c.add("config-json", "parsing the same config twice gives configs that encode differently, so their provenance hashes differ:\n    %s\n    %s", canon, again)
	}
}
