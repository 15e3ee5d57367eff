package footprint

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live    uint64
		current int
		want    int
	}{
		{0, High, Low},
		{Back - 1, High, Low},
		{Back, High, High}, // between Back and Switch: kept
		{Back, Low, Low},
		{Switch - 1, Low, Low},
		{Switch, Low, High},
		{64 << 20, Low, High},
	} {
		if got := Percent(tc.live, tc.current); got != tc.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tc.live, tc.current, got, tc.want)
		}
	}
}

// TestTunerFollowsTheLiveHeap checks that the percentage is set after
// each collection, as the live heap crosses Switch and Back.
func TestTunerFollowsTheLiveHeap(t *testing.T) {
	live := make(chan uint64)
	set := make(chan int, 1)
	// Once the test is over the tuner stays armed, reading a live heap
	// that changes nothing: a cleanup blocked on live would hold up every
	// other cleanup in the process.
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	read := func() uint64 {
		select {
		case v := <-live:
			return v
		case <-done:
			return Back
		}
	}
	tu := &tuner{read: read, set: func(p int) int { set <- p; return 0 }, percent: High}
	tu.arm()
	for _, step := range []struct {
		live uint64
		want int // 0: unchanged
	}{{1 << 20, Low}, {Switch + 1, High}, {Back + 1, 0}, {Back - 1, Low}} {
		collectUntilRead(live, step.live)
		if step.want == 0 {
			continue
		}
		if got := <-set; got != step.want {
			t.Fatalf("live %d: set %d, want %d", step.live, got, step.want)
		}
	}
	select {
	case p := <-set:
		t.Fatalf("set %d when the live heap stayed between Back and Switch", p)
	default:
	}
}

// collectUntilRead collects until the cleanup reads v from live: the
// cleanup runs after a collection, and it arms the next one after it has
// read, so a collection may come before the next cleanup is armed.
func collectUntilRead(live chan<- uint64, v uint64) {
	for {
		runtime.GC()
		select {
		case live <- v:
			return
		default:
			runtime.Gosched()
		}
	}
}

func TestLowerHeapFloor(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: LowerHeapFloor leaves the collector alone")
	}
	LowerHeapFloor()
	prev := debug.SetGCPercent(High)
	defer debug.SetGCPercent(prev)
	if prev != Low {
		t.Fatalf("GC percent after LowerHeapFloor = %d, want %d (the test binary's live heap is small)", prev, Low)
	}
}
