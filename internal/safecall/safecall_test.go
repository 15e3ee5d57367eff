package safecall

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A panicking call is an error carrying the panic's value and stack, and
// the caller goes on.
func TestPanicBecomesAnError(t *testing.T) {
	watch, cancel := Within(time.Minute)
	defer cancel()
	_, err := Call(watch, "driver Next", func() (int, error) { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v; want a *PanicError", err)
	}
	if pe.Value != "boom" || !strings.Contains(string(pe.Stack), "safecall_test.go") {
		t.Errorf("panic = %v with stack\n%s\nwant boom, with this test's frame", pe.Value, pe.Stack)
	}
	if err := Protect(func() error { panic(errors.New("in place")) }); err == nil || err.Error() != "panic: in place" {
		t.Errorf("Protect = %v; want panic: in place", err)
	}
}

// A call that ignores the end of its context is abandoned exactly its
// grace after the context ended — not before, however long the context
// lived — and one that honours it returns its own error.
func TestAfterAbandonsACallThatIgnoresItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		watch, release := After(ctx, 5*time.Second)
		defer release()
		stuck := make(chan struct{})
		defer close(stuck)
		start := time.Now()
		_, err := Call(watch, `driver "x" Next`, func() (int, error) { <-stuck; return 0, nil })
		var ab *AbandonedError
		if !errors.As(err, &ab) {
			t.Fatalf("err = %v; want an *AbandonedError", err)
		}
		if got, want := time.Since(start), time.Hour+5*time.Second; got != want {
			t.Errorf("abandoned after %s; want %s (the deadline, then the grace)", got, want)
		}
		if want := `driver "x" Next did not return within 5s after its context ended (abandoned)`; err.Error() != want {
			t.Errorf("err = %q; want %q", err, want)
		}

		ctx2, cancel2 := context.WithTimeout(t.Context(), time.Minute)
		defer cancel2()
		watch2, release2 := After(ctx2, 5*time.Second)
		defer release2()
		_, err = Call(watch2, "honest", func() (int, error) { <-ctx2.Done(); return 0, ctx2.Err() })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v; want the call's own context.DeadlineExceeded", err)
		}
	})
}

// A call with no context gets d from its start; what it returns in time
// is its result.
func TestWithinBoundsACallWithoutContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		watch, cancel := Within(time.Second)
		defer cancel()
		v, err := Call(watch, "Close", func() (string, error) { return "ok", nil })
		if v != "ok" || err != nil {
			t.Errorf("Call = %q, %v; want ok, nil", v, err)
		}
		stuck := make(chan struct{})
		defer close(stuck)
		start := time.Now()
		err = Do(watch, "Close", func() error { <-stuck; return nil })
		if got := time.Since(start); got != time.Second {
			t.Errorf("abandoned after %s; want 1s", got)
		}
		if want := "Close did not return within 1s (abandoned)"; err == nil || err.Error() != want {
			t.Errorf("err = %v; want %q", err, want)
		}
	})
}
