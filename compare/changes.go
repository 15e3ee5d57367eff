package compare

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// FieldChange is one value that differs inside an identity field, by its
// JSON path within the field ("commands[0].version", "prompt", "image"):
// the value in A and the value in B (null: absent on that side).
type FieldChange struct {
	Path string `json:"path"`
	A    any    `json:"a"`
	B    any    `json:"b"`
}

// maxChanges caps the changes kept per mismatch; Mismatch.MoreChanges
// counts the rest. The text shows fewer (textChanges).
const (
	maxChanges  = 20
	textChanges = 5
	// textValue caps a value in the text, in runes.
	textValue = 60
)

// fieldChanges lists the leaves that differ between the JSON forms of a
// and b, in path order, at most maxChanges, and how many more there are.
func fieldChanges(a, b any) ([]FieldChange, int) {
	var out []FieldChange
	walkChanges("", jsonTree(a), jsonTree(b), &out)
	if len(out) > maxChanges {
		return out[:maxChanges], len(out) - maxChanges
	}
	return out, 0
}

// jsonTree is v as decoded JSON (maps, slices, strings, float64, bool, nil).
func jsonTree(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var t any
	if json.Unmarshal(raw, &t) != nil {
		return string(raw)
	}
	return t
}

func walkChanges(path string, a, b any, out *[]FieldChange) {
	if ma, ok := a.(map[string]any); ok {
		if mb, ok := b.(map[string]any); ok {
			for _, k := range sortedKeys(ma, mb) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walkChanges(p, ma[k], mb[k], out)
			}
			return
		}
	}
	if la, ok := a.([]any); ok {
		if lb, ok := b.([]any); ok {
			for i := range max(len(la), len(lb)) {
				var x, y any
				if i < len(la) {
					x = la[i]
				}
				if i < len(lb) {
					y = lb[i]
				}
				walkChanges(fmt.Sprintf("%s[%d]", path, i), x, y, out)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, FieldChange{Path: path, A: a, B: b})
	}
}

// changeValue is a value of a change at path for the text: quoted
// strings, hashes shortened to 12 characters, compact JSON, "absent" for a
// missing value, cut to textValue runes.
func changeValue(path string, v any) string {
	var s string
	last := strings.ToLower(path[strings.LastIndexAny(path, ".]")+1:])
	switch x := v.(type) {
	case nil:
		return "absent"
	case string:
		if strings.Contains(last, "sha256") || strings.HasSuffix(last, "hash") {
			return shortHash(x)
		}
		s = strconv.Quote(x)
	default:
		s = compactJSON(x, textValue)
	}
	if r := []rune(s); len(r) > textValue {
		s = string(r[:textValue]) + "…"
	}
	return s
}

// varyFlag is the command-line flag that accepts a difference in f, or
// "" for the case id, which cannot vary.
func varyFlag(f Field) string {
	if f == FieldCaseID {
		return ""
	}
	return "-vary " + string(f)
}

// varyFlags are the flags that would accept every unvaried mismatch of
// ms, in identity field order: "-vary caseHash -vary runtime".
func varyFlags(ms []Mismatch) string {
	need := map[Field]bool{}
	for _, m := range ms {
		if !m.Varied {
			need[m.Field] = true
		}
	}
	var flags []string
	for _, f := range identityFields {
		if need[f] && varyFlag(f) != "" {
			flags = append(flags, varyFlag(f))
		}
	}
	return strings.Join(flags, " ")
}

// sortedKeys are the keys of a and b, each once, sorted.
func sortedKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
