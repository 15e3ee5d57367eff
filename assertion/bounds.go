package assertion

import (
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// bounds is an inclusive range with optional ends.
type bounds struct {
	min, max *int
}

// validate checks that at least one end is set (when required), that both
// are non-negative and that min <= max. The field names are those of the
// config.
func (b bounds) validate(minField, maxField string, required bool, p *lux.Problems) {
	if required && b.min == nil && b.max == nil {
		p.AddFix(minField, fmt.Sprintf("%s or %s is required", minField, maxField), "give at least one bound")
	}
	if b.min != nil && *b.min < 0 {
		p.Addf(minField, "must not be negative, got %d", *b.min)
	}
	if b.max != nil && *b.max < 0 {
		p.Addf(maxField, "must not be negative, got %d", *b.max)
	}
	if b.min != nil && b.max != nil && *b.min > *b.max {
		p.Addf(maxField, "must be at least %s (%d), got %d", minField, *b.min, *b.max)
	}
}

// check reports whether v is in range and says why, as in "3 < min 5",
// "7 > max 5" or "3 >= 1, <= 5".
func (b bounds) check(v int) (bool, string) {
	if b.min != nil && v < *b.min {
		return false, fmt.Sprintf("%d < min %d", v, *b.min)
	}
	if b.max != nil && v > *b.max {
		return false, fmt.Sprintf("%d > max %d", v, *b.max)
	}
	var parts []string
	if b.min != nil {
		parts = append(parts, fmt.Sprintf(">= %d", *b.min))
	}
	if b.max != nil {
		parts = append(parts, fmt.Sprintf("<= %d", *b.max))
	}
	if len(parts) == 0 {
		return true, fmt.Sprint(v)
	}
	return true, fmt.Sprintf("%d %s", v, strings.Join(parts, ", "))
}

// detail returns the bounds for a result's detail.
func (b bounds) detail(d map[string]any) map[string]any {
	if b.min != nil {
		d["min"] = *b.min
	}
	if b.max != nil {
		d["max"] = *b.max
	}
	return d
}

// plural returns "1 call" or "3 calls".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// verdict passes when ok and fails otherwise, with the same comment and
// detail either way.
func verdict(ok bool, comment string, detail any) lux.Result {
	if ok {
		return Pass(comment, detail)
	}
	return Fail(comment, detail)
}
