package driver

import (
	"encoding/json"
	"errors"
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
	found := lux.ProblemsOf(err) // the known fields decoded, whatever the unknown ones
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
		for _, e := range lux.ProblemsOf(validate()) {
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
