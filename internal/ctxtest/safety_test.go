package ctxtest

import (
	"context"
	"testing"
	"time"
)

// fakeT is a test whose binary's deadline is set by the test.
type fakeT struct {
	*testing.T
	end time.Time
	ok  bool
}

func (f fakeT) Deadline() (time.Time, bool) { return f.end, f.ok }

func TestSafetyEndsBeforeTheBinarysDeadline(t *testing.T) {
	end := time.Now().Add(100 * time.Second)
	ctx, cancel := Safety(fakeT{T: t, end: end, ok: true})
	defer cancel()
	got, ok := ctx.Deadline()
	if !ok {
		t.Fatal("no deadline, want one before the binary's")
	}
	// A tenth of the time left, at most 30 s and at least a second.
	if lo, hi := end.Add(-10*time.Second), end.Add(-9*time.Second); got.Before(lo) || got.After(hi) {
		t.Errorf("deadline %v before the binary's, want about 10s", end.Sub(got))
	}

	far := time.Now().Add(time.Hour)
	ctx, cancel = Safety(fakeT{T: t, end: far, ok: true})
	defer cancel()
	if got, _ := ctx.Deadline(); !got.Equal(far.Add(-30 * time.Second)) {
		t.Errorf("deadline %v before the binary's, want 30s at most", far.Sub(got))
	}
}

func TestSafetyWithoutABinaryDeadlineHasNone(t *testing.T) {
	ctx, cancel := Safety(fakeT{T: t})
	defer cancel()
	if d, ok := ctx.Deadline(); ok {
		t.Errorf("deadline %v, want none (-timeout 0)", d)
	}
	cancel()
	if ctx.Err() == nil {
		t.Error("cancel did not end the context")
	}
}

func TestSafetyEndsWithTheTest(t *testing.T) {
	var ctx interface{ Err() error }
	t.Run("inner", func(t *testing.T) {
		c, cancel := Safety(t)
		t.Cleanup(cancel)
		ctx = c
	})
	if ctx.Err() == nil {
		t.Error("the context outlived its test")
	}
}

type key struct{}

// Within keeps the parent's values and ends with the parent, and ends at
// the safety net when the parent does not.
func TestWithinEndsWithTheParentOrTheSafetyNet(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx, cancel := Within(t, parent)
	defer cancel()
	if got := ctx.Value(key{}); got != "v" {
		t.Errorf("value = %v; want the parent's", got)
	}
	cancelParent()
	<-ctx.Done()

	// A binary whose deadline is already near: the safety net ends it.
	ctx, cancel = Within(fakeT{T: t, end: time.Now(), ok: true}, context.Background())
	defer cancel()
	<-ctx.Done()
	if ctx.Err() != context.Canceled {
		t.Errorf("err = %v; want context.Canceled (the safety net ended it)", ctx.Err())
	}
}
