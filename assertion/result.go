package assertion

import (
	"context"

	"github.com/luxeval/lux"
)

// CheckFunc adapts a function to lux.Check.
type CheckFunc func(ctx context.Context, run *lux.Run) (lux.Result, error)

// Evaluate calls f.
func (f CheckFunc) Evaluate(ctx context.Context, run *lux.Run) (lux.Result, error) {
	return f(ctx, run)
}

// Pass returns a passing result with score 1.
func Pass(comment string, detail any) lux.Result {
	return lux.Result{Passed: true, Score: 1, Comment: comment, Detail: detail}
}

// Fail returns a failing result with score 0.
func Fail(comment string, detail any) lux.Result {
	return lux.Result{Passed: false, Score: 0, Comment: comment, Detail: detail}
}
