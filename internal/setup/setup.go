// Package setup runs the setups of lifecycle hooks (lux.Hook) in order and
// their cleanups in reverse, each exactly once, rolling back when a setup
// fails.
package setup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/luxeval/lux"
)

// Step is one named setup of a [Run].
type Step struct {
	Name  string // names the step in errors: "hook \"db\""
	Setup func(ctx context.Context) (lux.Cleanup, error)
}

// Run runs steps in order and returns their teardown. When a step fails
// (or panics, or ctx is done before the next step), the cleanups of the
// steps already set up run at once, in reverse, and Run returns the
// step's error joined with theirs; the teardown returned then has nothing
// left to do. A nil Cleanup is skipped.
func Run(ctx context.Context, steps []Step, cleanupCtx func() (context.Context, context.CancelFunc)) (*Teardown, error) {
	t := &Teardown{cleanupCtx: cleanupCtx}
	for _, s := range steps {
		if err := context.Cause(ctx); err != nil {
			return t, errors.Join(fmt.Errorf("%s: not set up: %w", s.Name, err), t.Close())
		}
		c, err := protect(s.Name+" setup", func() (lux.Cleanup, error) { return s.Setup(ctx) })
		if err != nil {
			return t, errors.Join(fmt.Errorf("%s: setup: %w", s.Name, err), t.Close())
		}
		if c != nil {
			t.steps = append(t.steps, namedCleanup{s.Name, c})
		}
	}
	return t, nil
}

// Teardown runs the cleanups of a [Run], in reverse, exactly once.
type Teardown struct {
	cleanupCtx func() (context.Context, context.CancelFunc)
	steps      []namedCleanup
	once       sync.Once
	err        error
}

type namedCleanup struct {
	name string
	c    lux.Cleanup
}

// Close runs every cleanup, last set up first, each even when one before
// it failed, and returns their errors joined. Only the first call does
// anything; later calls return the same error. A nil Teardown does
// nothing.
func (t *Teardown) Close() error {
	if t == nil {
		return nil
	}
	t.once.Do(func() {
		var errs []error
		for i := len(t.steps) - 1; i >= 0; i-- {
			s := t.steps[i]
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if t.cleanupCtx != nil {
				ctx, cancel = t.cleanupCtx()
			}
			_, err := protect(s.name+" cleanup", func() (lux.Cleanup, error) { return nil, s.c(ctx) })
			cancel()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: cleanup: %w", s.name, err))
			}
		}
		t.steps = nil
		t.err = errors.Join(errs...)
	})
	return t.err
}

// protect calls f, turning a panic into an error.
func protect(what string, f func() (lux.Cleanup, error)) (c lux.Cleanup, err error) {
	defer func() {
		if v := recover(); v != nil {
			c, err = nil, fmt.Errorf("%s panicked: %v", what, v)
		}
	}()
	return f()
}

// ErrorText is err (from Run or Teardown.Close) as one line, for a
// run's reason.
func ErrorText(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
