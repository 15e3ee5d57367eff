package assertion

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/luxeval/lux"
)

// PredicateFunc grades a run in Go. It returns the verdict as a lux.Result
// (Pass and Fail build the usual ones; Score may be anything in
// [0,1]); an error means the run could not be graded.
type PredicateFunc func(ctx context.Context, run *lux.Run) (lux.Result, error)

// Predicate returns an assertion plugin of type name that grades runs with
// fn. Register it like any plugin and refer to it from cases by that name,
// in Go or in JSON ({"type": name}); it takes no config, so a case that
// gives it fields is refused. For a predicate with settings, see
// PredicateWith.
//
// fn's verdict is checked: a score outside [0,1] (or NaN) is an error, and
// so are a detail that cannot be encoded as JSON (it goes into
// grading.json) and a panic, which is recovered. The plugin's Version is "1"; set it to
// something else when fn's grading changes, so regrades and comparisons can
// tell the graders apart.
func Predicate(name string, fn PredicateFunc) *lux.AssertionPlugin {
	return PredicateWith(name, func(ctx context.Context, run *lux.Run, _ struct{}) (lux.Result, error) {
		return fn(ctx, run)
	})
}

// PredicateWith is Predicate for a function with settings: the assertion's
// config is decoded strictly into a C (unknown fields are errors, each
// named) and passed to fn. C is usually a struct with JSON tags; when it
// (or *C) has a method Validate() error, Parse calls it on the decoded
// config in the same pass (see lux.DecodeConfig), so a case with a
// misspelled field and a bad value in another learns of both at once.
// Validate reports each problem at its field path through lux.Problems
// (p.Add("maxEdits", "must be above 0"), then p.Err(nil)); a problem at a
// field whose value did not decode is left out. A Validate on *C may also
// fill in defaults, which fn then sees.
func PredicateWith[C any](name string, fn func(ctx context.Context, run *lux.Run, cfg C) (lux.Result, error)) *lux.AssertionPlugin {
	return &lux.AssertionPlugin{
		Type:    name,
		Doc:     "Go predicate " + name,
		Version: "1",
		Parse: func(raw json.RawMessage) (lux.Check, error) {
			var cfg C
			var validate []func() error
			if v, ok := any(&cfg).(interface{ Validate() error }); ok {
				validate = append(validate, func() error { return v.Validate() })
			}
			if err := lux.DecodeConfig(raw, &cfg, validate...); err != nil {
				return nil, err
			}
			return CheckFunc(func(ctx context.Context, run *lux.Run) (res lux.Result, err error) {
				if run == nil {
					return lux.Result{}, fmt.Errorf("assertion: %s: no run to grade", name)
				}
				defer func() {
					if r := recover(); r != nil {
						res, err = lux.Result{}, fmt.Errorf("assertion: predicate %s panicked: %v", name, r)
					}
				}()
				res, err = fn(ctx, run, cfg)
				if err != nil {
					return lux.Result{}, fmt.Errorf("assertion: predicate %s: %w", name, err)
				}
				if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
					return lux.Result{}, fmt.Errorf("assertion: predicate %s: score %v is outside [0,1]", name, res.Score)
				}
				if _, err := json.Marshal(res.Detail); err != nil {
					return lux.Result{}, fmt.Errorf("assertion: predicate %s: detail is not JSON-encodable: %w", name, err)
				}
				return res, nil
			}), nil
		},
	}
}
