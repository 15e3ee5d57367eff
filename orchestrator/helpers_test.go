package orchestrator

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux/internal/digest"
)

// rawJSON compares raw JSON by its canonical form.
var rawJSON = cmp.Transformer("rawJSON", func(r json.RawMessage) string {
	b, err := digest.CanonicalJSON(r)
	if err != nil {
		return err.Error()
	}
	return string(b)
})

// anyJSON compares free-form values (details) by their JSON encoding.
var anyJSON = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type() != nil && p.Last().Type().Kind() == 0x14 // reflect.Interface
}, cmp.Transformer("anyJSON", func(v any) string {
	b, _ := digest.CanonicalJSON(v)
	return string(b)
}))
