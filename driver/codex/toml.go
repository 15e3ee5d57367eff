package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tomlValue writes a JSON value (as encoding/json decodes it into any, or a
// Go string, bool, number, slice or map of them) as an inline TOML value.
func tomlValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", fmt.Errorf("null has no TOML form")
	case string:
		return tomlString(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return tomlFloat(x)
	case json.Number:
		return x.String(), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := tomlValue(e)
			if err != nil {
				return "", fmt.Errorf("[%d]: %w", i, err)
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case []string:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			s, err := tomlValue(x[k])
			if err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			parts = append(parts, tomlKey(k)+" = "+s)
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	}
	return "", fmt.Errorf("a %T has no TOML form", v)
}

// tomlFloat writes whole numbers as TOML integers and others as floats.
func tomlFloat(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v has no TOML form", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s, nil
}

// tomlString writes s as a TOML basic string. JSON string escapes are
// TOML escapes too; DEL, which JSON leaves raw, is escaped.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.ReplaceAll(out, "\x7f", `\u007f`)
}

// tomlKey writes a key bare when it can be, else quoted.
func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}
