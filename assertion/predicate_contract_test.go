package assertion_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
)

// A verdict whose detail cannot be written to grading.json is not a
// verdict: the predicate could not grade.
func TestPredicateDetailMustBeJSON(t *testing.T) {
	tests := []struct {
		name   string
		detail any
		want   string
	}{
		{"channel", map[string]any{"ch": make(chan int)}, "assertion: predicate p: detail is not JSON-encodable: json: unsupported type: chan int"},
		{"NaN", map[string]any{"ratio": math.NaN()}, "assertion: predicate p: detail is not JSON-encodable: json: unsupported value: NaN"},
		{"function", func() {}, "assertion: predicate p: detail is not JSON-encodable: json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check, err := assertion.Predicate("p", func(context.Context, *lux.Run) (lux.Result, error) {
				return assertion.Pass("fine", tt.detail), nil
			}).Parse(nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := check.Evaluate(context.Background(), &lux.Run{})
			if err == nil {
				t.Fatalf("Evaluate = %+v, want an error", res)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
		})
	}
}

// A predicate that panics with nil still leaves the run ungraded.
func TestPredicatePanicNil(t *testing.T) {
	check, err := assertion.Predicate("p", func(context.Context, *lux.Run) (lux.Result, error) {
		panic(nil)
	}).Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Evaluate(context.Background(), &lux.Run{})
	if err == nil || !strings.HasPrefix(err.Error(), "assertion: predicate p panicked: ") {
		t.Errorf("Evaluate = %+v, %v; want a panic error", res, err)
	}
}
