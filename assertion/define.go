package assertion

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/luxeval/lux"
)

// version of every built-in's grading; bump a plugin's own when its
// verdicts change.
const version = "1"

// define builds a built-in plugin from its config type C: Parse decodes the
// config strictly into a zero C, validate records every problem with its
// field path (and may fill defaults), in the same pass through
// lux.DecodeConfig, so an unknown field does not hide the others' problems,
// and eval grades a run with the validated config.
func define[C any](typ, doc string, validate func(c *C, p *lux.Problems), eval func(ctx context.Context, c *C, run *lux.Run) (lux.Result, error)) *lux.AssertionPlugin {
	return &lux.AssertionPlugin{
		Type:    typ,
		Doc:     doc,
		Version: version,
		Parse: func(raw json.RawMessage) (lux.Check, error) {
			c := new(C)
			if err := lux.DecodeConfig(raw, c, problemsFunc(c, validate)); err != nil {
				return nil, err
			}
			return &check[C]{typ: typ, cfg: c, eval: eval}, nil
		},
	}
}

// problemsFunc is validate over c as DecodeConfig takes it, run on c once
// it is decoded.
func problemsFunc[C any](c *C, validate func(c *C, p *lux.Problems)) func() error {
	return func() error {
		var p lux.Problems
		if validate != nil {
			validate(c, &p)
		}
		return p.Err(nil)
	}
}

// check is a configured built-in.
type check[C any] struct {
	typ  string
	cfg  *C
	eval func(ctx context.Context, c *C, run *lux.Run) (lux.Result, error)
}

// Evaluate grades run.
func (k *check[C]) Evaluate(ctx context.Context, run *lux.Run) (lux.Result, error) {
	if run == nil {
		return lux.Result{}, errors.New("assertion: " + k.typ + ": no run to grade")
	}
	if err := ctx.Err(); err != nil {
		return lux.Result{}, err
	}
	return k.eval(ctx, k.cfg, run)
}

// All returns every built-in assertion, in a stable order. Each call
// returns new values.
func All() []*lux.AssertionPlugin {
	return []*lux.AssertionPlugin{
		runSucceeded(),
		fileExists(),
		fileContains(),
		fileMatches(),
		fileRegexCount(),
		fileRegexSet(),
		globCount(),
		jsonPointerEquals(),
		commandExitsZero(),
		contains(),
		notContains(),
		regex(),
		toolCalled(),
		toolCallCount(),
		toolCalledWith(),
		toolInvocation(),
		toolResultIsError(),
		toolResultContains(),
		toolResultJSONPointerEquals(),
		noErrorResults(),
		interruptCount(),
		latencyUnder(),
		tokensUnder(),
		costUnder(),
		artifactBytesUnder(),
	}
}

// Register adds every built-in assertion to reg. It registers none when one
// of their types is already taken, and returns that error.
func Register(reg *lux.Registry) error {
	all := All()
	taken := map[string]bool{}
	for _, t := range reg.Assertions() {
		taken[t] = true
	}
	for _, p := range all {
		if taken[p.Type] {
			// Let the registry word the error (it wraps ErrDuplicatePlugin).
			return reg.RegisterAssertion(p)
		}
	}
	for _, p := range all {
		if err := reg.RegisterAssertion(p); err != nil {
			return err
		}
	}
	return nil
}
