package driver_test

import (
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/driver"
)

// Two goroutines calling Next at once share the events between them, and
// both see io.EOF after the terminal event: neither waits for a wake-up
// that never comes.
func TestSessionConcurrentNext(t *testing.T) {
	s := start(t, driver.SessionOptions{Process: fakeSpec(t,
		"say ready", "say progress a", "say progress b", "say progress c", "await", "say done")})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var total atomic.Int32
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, err := s.Next(ctx)
				if err != nil {
					errs[i] = err
					return
				}
				if total.Add(1) == 4 {
					// Both callers are about to wait again: let the agent finish.
					assert.NoError(t, s.Stdin().WriteLine(ctx, []byte("go")))
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(5), total.Load())
	for i, err := range errs {
		assert.ErrorIs(t, err, io.EOF, "caller %d", i)
	}
}
