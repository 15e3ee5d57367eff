package orchestrator

import (
	"fmt"
	"runtime/debug"
)

// panicError is a plugin's panic turned into an error: the run it
// happened in fails (or the case is refused, during validation), and
// everything else goes on.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// protect calls f, turning a panic into a *panicError.
func protect(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return f()
}

// call calls a plugin method f for the run; a panic becomes its error,
// and its stack goes to the run's stderr.log for the plugin's author.
func (r *runState) call(what string, f func() error) error {
	err := protect(f)
	if pe, ok := err.(*panicError); ok && r.stderr != nil {
		fmt.Fprintf(r.stderr, "\n[lux: %s panicked: %v]\n%s\n", what, pe.value, pe.stack)
	}
	return err
}
