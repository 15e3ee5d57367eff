package luxtest

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
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
// field is named as a lux.FieldError of kind lux.ErrUnknownField. Each of
// invalid (and the empty config, when parse refuses it) keeps every one of
// its problems once the unknown field is added to it: a typo hides nothing.
func (c *checker) checkStrict(base json.RawMessage, parse func(json.RawMessage) error, invalid ...json.RawMessage) {
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
		case !isUnknownField(err, UnknownField):
			c.add("parse-unknown-field", "Parse rejected the unknown field %q without naming it as a *lux.FieldError at %q of Kind lux.ErrUnknownField: %v; %s", UnknownField, UnknownField, err, fix)
		}
	}
	c.checkNothingHidden(parse, append([]json.RawMessage{json.RawMessage("{}")}, invalid...))
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

// isUnknownField reports whether err holds a problem of kind
// lux.ErrUnknownField at path.
func isUnknownField(err error, path string) bool {
	for _, e := range lux.ProblemsOf(err) {
		var fe *lux.FieldError
		if errors.As(e, &fe) && fe.Path == path && errors.Is(fe, lux.ErrUnknownField) {
			return true
		}
	}
	return false
}

// checkNothingHidden checks that every problem Parse finds in each of the
// configs it refuses is still found once UnknownField is added.
func (c *checker) checkNothingHidden(parse func(json.RawMessage) error, configs []json.RawMessage) {
	seen := map[string]bool{}
	for _, raw := range configs {
		typo, ok := withUnknownField(raw)
		if !ok || seen[string(typo)] {
			continue
		}
		seen[string(typo)] = true
		fl, err := guardErr(c.timeout, func() error { return parse(raw) })
		if fl != "" || !errors.Is(err, lux.ErrInvalidConfig) {
			continue // reported by the checks of that config
		}
		fl, typoErr := guardErr(c.timeout, func() error { return parse(typo) })
		if fl != "" {
			c.add("parse-unknown-field", "Parse(%s) %s", typo, fl)
			continue
		}
		found := map[string]bool{}
		for _, e := range lux.ProblemsOf(typoErr) {
			found[e.Error()] = true
		}
		for _, e := range lux.ProblemsOf(err) {
			if !found[e.Error()] {
				c.add("parse-unknown-field", "Parse(%s) reports %q, but Parse(%s) does not: an unknown field hides the other problems; validate in the same pass, giving lux.DecodeConfig the config's validation",
					raw, e.Error(), typo)
			}
		}
	}
}

// checkConfigJSON checks that a parsed config encodes as JSON (its hash is
// part of every run's provenance), that the encoding says something when
// the raw config did, and that parsing the same raw config again gives the
// same encoding.
func (c *checker) checkConfigJSON(raw json.RawMessage, cfg any, reparse func() (any, error)) {
	canon, fl, err := guard(c.timeout, func() ([]byte, error) { return digest.CanonicalJSON(cfg) })
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
		return digest.CanonicalJSON(v)
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
