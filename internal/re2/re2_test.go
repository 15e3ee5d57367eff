package re2_test

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/luxeval/lux/internal/re2"
)

func TestProblem(t *testing.T) {
	for _, tt := range []struct{ pattern, want string }{
		{"(", "not a valid regular expression: missing closing ): `(`"},
		{"a(?=b)", "not a valid regular expression: invalid or unsupported Perl syntax: `(?=`"},
		{`(a)\1`, "not a valid regular expression: invalid escape sequence: `\\1`"},
		{"x{2,1}", "not a valid regular expression: invalid repeat count: `{2,1}`"},
	} {
		_, err := regexp.Compile(tt.pattern)
		if err == nil {
			t.Fatalf("%q compiled", tt.pattern)
		}
		if got := re2.Problem(err); got != tt.want {
			t.Errorf("Problem(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
		// Wrapped, as a caller may hand it on.
		if got := re2.Problem(fmt.Errorf("rule 3: %w", err)); got != tt.want {
			t.Errorf("Problem(wrapped %q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	if got := re2.Problem(errors.New("too long")); got != "not a valid regular expression: too long" {
		t.Errorf("Problem(other error) = %q", got)
	}
}
