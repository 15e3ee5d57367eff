package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/luxeval/lux/internal/safecall"
)

// Plugin calls are guarded by package safecall, two ways. A panic becomes
// an error: the run it happened in fails (or the case is refused, during
// validation), and everything else goes on. And a call that does not
// return is not waited for without end: a call given the run's context is
// abandoned Options.CleanupTimeout after that context ends (safecall.After;
// never while it lives), and Close and Usage, which have no context, get
// CleanupTimeout from their start (safecall.Within). An abandoned call's
// goroutine is left behind; the run's record is completed and says so.

// call calls the plugin method f for the run and waits for it until it
// returns or watch is done; then f is abandoned with a
// *safecall.AbandonedError (watch's cause says why). A panic becomes f's
// error, and its stack goes to the run's stderr.log for the plugin's
// author.
//
// f must write only to variables that the caller reads after call returned
// nil: an abandoned f may still write them later.
func (r *runState) call(watch context.Context, what string, f func() error) error {
	err := safecall.Do(watch, what, f)
	var pe *safecall.PanicError
	if errors.As(err, &pe) && r.stderr != nil {
		fmt.Fprintf(r.stderr, "\n[lux: %s panicked: %v]\n%s\n", what, pe.Value, pe.Stack)
	}
	return err
}
