// Package footprint keeps down the memory of a process that owns its Go
// runtime and runs for long with little live data, such as the lux command
// line running a suite: about a MiB of live heap, a steady stream of
// short-lived garbage per run, and an executable much larger than the code
// a run executes.
//
// LowerHeapFloor makes the garbage collector's heap floor follow the live
// heap. The Go runtime lets the heap grow to at least 4 MiB before it
// collects (at GOGC=100 the goal is twice the live heap, and never below
// 4 MiB); for such a process that floor, not its live data, sets its
// memory. LowerHeapFloor runs the collector at GOGC=Low (a floor of
// 4 MiB × Low/100) while the live heap is below Switch, and at GOGC=100
// (the runtime's own pacing) from there up; it goes back to Low when the
// live heap falls below Back. The live heap is read after each collection.
//
// ReleaseStartupPages drops the process's mappings of its executable's
// code and read-only data once start-up is over (see its documentation).
package footprint

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The two settings and the live heap that switches between them.
const (
	Low    = 75
	High   = 100
	Switch = 2 << 20
	Back   = 3 << 19 // 1.5 MiB
)

var once sync.Once

// LowerHeapFloor sets the collector's percentage by the live heap from now
// on, once per process. It does nothing when the environment sets GOGC or
// GOMEMLIMIT: whoever set them chose.
func LowerHeapFloor() {
	once.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		t := &tuner{read: liveHeap, set: debug.SetGCPercent, percent: High}
		t.adjust()
		t.arm()
	})
}

// Percent is the GC percentage for a live heap of live bytes when the
// current one is current.
func Percent(live uint64, current int) int {
	switch {
	case live >= Switch:
		return High
	case live < Back:
		return Low
	}
	return current
}

// tuner sets the percentage after each collection.
type tuner struct {
	read    func() uint64 // the live heap
	set     func(int) int // debug.SetGCPercent
	percent int           // the one set
}

// liveHeap is the live heap the last collection measured (all of it, 0
// before the first).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// sentinel is an object nothing keeps: the next collection frees it, and
// its cleanup then runs. It holds a pointer so that it is not put in a
// tiny block, whose cleanups may never run.
type sentinel struct{ _ *byte }

// arm registers a cleanup that adjusts the percentage after the next
// collection, and arms again.
func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *tuner) {
		t.adjust()
		t.arm()
	}, t)
}

// adjust sets the percentage for the live heap, when it changes.
func (t *tuner) adjust() {
	if p := Percent(t.read(), t.percent); p != t.percent {
		t.percent = p
		t.set(p)
	}
}
