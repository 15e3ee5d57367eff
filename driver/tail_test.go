package driver_test

import (
	"strings"
	"testing"

	"github.com/luxeval/lux/driver"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short, trimmed", "  boom\n", 10, "boom"},
		{"cut at a line start", "first line\nsecond\nthird", 12, "third"},
		{"no line start near", strings.Repeat("x", 20), 5, "xxxxx"},
		{"empty", " \n ", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := driver.Tail(tt.in, tt.n); got != tt.want {
				t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
