package sandbox

import (
	"fmt"
	"sync"
	"syscall"
)

// A spare is a thread kept ready for the next confined start: locked to
// its goroutine, with the part of the confinement that does not depend
// on the run (the bounding set, no_new_privs, the seccomp filter)
// already applied, waiting for the start to run on it. Making a thread
// and installing a filter (the kernel compiles it: tens of
// microseconds) are so taken off the start's critical path: the next
// spare is made while the agent runs.
//
// A spare is in no Landlock domain: the start restricts it to the run's
// ruleset just before it forks the agent, and it ends before the agent
// runs, as a thread made for the start does (see startConfined). While
// it waits, it is an idle thread of the harness with no_new_privs, a
// seccomp filter and an empty bounding set, which hold for it alone.
type spare struct {
	kind confinement
	tid  int
	run  chan func(error) // closed to end a spare no longer wanted
}

// confinement is what a spare has applied.
type confinement struct{ dropCaps, seccomp, denyUDP bool }

func confinementOf(s *spec) confinement {
	return confinement{dropCaps: s.DropCaps, seccomp: s.Seccomp, denyUDP: s.Seccomp && !s.AllowUDP}
}

var spares struct {
	mu     sync.Mutex
	ready  *spare         // nil when none waits
	making sync.WaitGroup // spares being made (and the ones they replace ending)
	busy   bool           // one is being made
}

// preconfine applies to the calling thread, which must be locked to its
// goroutine, what kind says.
func preconfine(kind confinement) error {
	if kind.dropCaps {
		if err := dropCaps(); err != nil {
			return fmt.Errorf("drop capabilities: %v", err)
		}
	}
	if err := noNewPrivs(); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if kind.seccomp {
		if err := installFilter(kind.denyUDP); err != nil {
			return fmt.Errorf("seccomp: %v", err)
		}
	}
	return nil
}

// onConfinedThread runs f on a thread of its own, locked for good (it
// ends with f), to which kind is applied; f gets the error of applying
// it. The thread is a spare made before when one of that kind waits.
// The caller makes the next one (makeSpare) once its agent runs: made
// during the start, it would compete with it for the processors.
func onConfinedThread(kind confinement, f func(error)) {
	spares.mu.Lock()
	sp := spares.ready
	if sp != nil && sp.kind == kind {
		spares.ready = nil
	} else {
		sp = nil
	}
	spares.mu.Unlock()
	if sp != nil {
		sp.run <- f
	} else {
		onOwnThread(func() { f(preconfine(kind)) })
	}
}

// makeSpare makes a spare of kind in the background, unless one waits
// already or is being made; a spare of another kind that waits ends.
func makeSpare(kind confinement) {
	spares.mu.Lock()
	defer spares.mu.Unlock()
	if spares.busy || (spares.ready != nil && spares.ready.kind == kind) {
		return
	}
	spares.busy = true
	spares.making.Add(1)
	onOwnThread(func() {
		err := preconfine(kind)
		sp := &spare{kind: kind, tid: syscall.Gettid(), run: make(chan func(error))}
		spares.mu.Lock()
		old := spares.ready
		if err == nil {
			spares.ready = sp
		}
		spares.busy = false
		spares.mu.Unlock()
		if old != nil {
			// The spare no longer wanted ends; once it has, this one
			// counts as made.
			fd, perr := pidfdThread(old.tid)
			close(old.run)
			if perr == nil {
				_ = waitReadable(fd)
				_ = syscall.Close(fd)
			}
		}
		spares.making.Done()
		if err != nil {
			return // the thread ends; the next start makes its own
		}
		if f, ok := <-sp.run; ok {
			f(nil)
		}
	})
}
