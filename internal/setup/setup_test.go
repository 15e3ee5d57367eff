package setup_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/setup"
)

// journal records what the steps did, in order.
type journal struct {
	mu  sync.Mutex
	log []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.log = append(j.log, s)
}

func (j *journal) got() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.log...)
}

// step sets up name; setupErr fails its setup, cleanupErr its cleanup.
func step(j *journal, name string, setupErr, cleanupErr error) setup.Step {
	return setup.Step{Name: name, Setup: func(context.Context) (lux.Cleanup, error) {
		j.add("setup " + name)
		if setupErr != nil {
			return nil, setupErr
		}
		return func(context.Context) error {
			j.add("cleanup " + name)
			return cleanupErr
		}, nil
	}}
}

func TestSetUpOrderAndExactlyOnce(t *testing.T) {
	var j journal
	td, err := setup.Run(context.Background(), []setup.Step{
		step(&j, "a", nil, nil), step(&j, "b", nil, errors.New("b is stuck")), step(&j, "c", nil, nil),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Close from several goroutines at once: the cleanups run once.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = td.Close() })
	}
	wg.Wait()
	want := []string{"setup a", "setup b", "setup c", "cleanup c", "cleanup b", "cleanup a"}
	if diff := cmp.Diff(want, j.got()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "b: cleanup: b is stuck") {
			t.Errorf("Close #%d = %v, want b's cleanup error (every call gets it)", i, err)
		}
	}
}

func TestSetUpRollsBackOnFailure(t *testing.T) {
	var j journal
	boom := errors.New("port in use")
	td, err := setup.Run(context.Background(), []setup.Step{
		step(&j, "a", nil, errors.New("a left a file")), step(&j, "b", nil, nil), step(&j, "c", boom, nil), step(&j, "d", nil, nil),
		{Name: "never", Setup: func(context.Context) (lux.Cleanup, error) {
			t.Error("a step after the failed one ran")
			return nil, nil
		}},
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the setup error", err)
	}
	for _, w := range []string{"c: setup: port in use", "a: cleanup: a left a file"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q: %v", w, err)
		}
	}
	want := []string{"setup a", "setup b", "setup c", "cleanup b", "cleanup a"}
	if diff := cmp.Diff(want, j.got()); diff != "" {
		t.Errorf("rollback (-want +got):\n%s", diff)
	}
	if err := td.Close(); err == nil || !strings.Contains(err.Error(), "a left a file") {
		t.Errorf("Close after a rollback = %v, want the rollback's errors again", err)
	}
	if got := len(j.got()); got != len(want) {
		t.Errorf("Close after a rollback ran cleanups again: %v", j.got())
	}
}

func TestSetUpCancelled(t *testing.T) {
	var j journal
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("user pressed ^C")
	cancelling := setup.Step{Name: "b", Setup: func(context.Context) (lux.Cleanup, error) {
		j.add("setup b")
		cancel(stop) // cancelled while b sets up: b succeeds, c never starts
		return func(ctx context.Context) error {
			if ctx.Err() != nil {
				t.Error("a cleanup got a cancelled context")
			}
			j.add("cleanup b")
			return nil
		}, nil
	}}
	_, err := setup.Run(ctx, []setup.Step{step(&j, "a", nil, nil), cancelling, step(&j, "c", nil, nil)},
		func() (context.Context, context.CancelFunc) { return context.WithCancel(context.WithoutCancel(ctx)) })
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "c: not set up") {
		t.Fatalf("err = %v, want the cancellation, naming the step not set up", err)
	}
	want := []string{"setup a", "setup b", "cleanup b", "cleanup a"}
	if diff := cmp.Diff(want, j.got()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSetUpPanics(t *testing.T) {
	var j journal
	td, err := setup.Run(context.Background(), []setup.Step{
		step(&j, "a", nil, nil),
		{Name: "p", Setup: func(context.Context) (lux.Cleanup, error) {
			return func(context.Context) error { panic("cleanup exploded") }, nil
		}},
		{Name: "none", Setup: func(context.Context) (lux.Cleanup, error) { return nil, nil }},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = td.Close()
	if err == nil || !strings.Contains(err.Error(), "p cleanup panicked: cleanup exploded") {
		t.Errorf("Close = %v, want the panic as an error", err)
	}
	if diff := cmp.Diff([]string{"setup a", "cleanup a"}, j.got()); diff != "" {
		t.Errorf("a later cleanup's panic stops no earlier one (-want +got):\n%s", diff)
	}
	_, err = setup.Run(context.Background(), []setup.Step{{Name: "q", Setup: func(context.Context) (lux.Cleanup, error) { panic("setup exploded") }}}, nil)
	if err == nil || !strings.Contains(err.Error(), "q setup panicked: setup exploded") {
		t.Errorf("SetUp = %v, want the panic as an error", err)
	}
}
