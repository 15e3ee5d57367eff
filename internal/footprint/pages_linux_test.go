package footprint

import (
	"encoding/json"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// exeMappings reads this process's mappings of its executable.
func exeMappings(t *testing.T) []mapping {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	var out []mapping
	for _, m := range parseSmaps(data) {
		if m.inode == st.Ino {
			out = append(out, m)
		}
	}
	return out
}

// readOnlyRSS is the KiB resident in the executable's read-only mappings.
func readOnlyRSS(ms []mapping) uint64 {
	var n uint64
	for _, m := range ms {
		if m.perms == "r-xp" || m.perms == "r--p" {
			n += m.rss
		}
	}
	return n
}

// probe is in the executable's read-only data.
const probe = "footprint: a constant in the executable's read-only data"

// TestReleaseStartupPages drops the executable's code and read-only data
// from the resident set, keeps a page of it that was written, and the
// program runs on.
func TestReleaseStartupPages(t *testing.T) {
	// Write one page of read-only data (with what it holds already), as
	// a dynamic loader does to a relocation it then makes read-only.
	data := unsafe.Pointer(unsafe.StringData(probe))
	start := unsafe.Add(data, -int(uintptr(data)&uintptr(os.Getpagesize()-1)))
	page := uintptr(start)
	mem := unsafe.Slice((*byte)(start), os.Getpagesize())
	if err := syscall.Mprotect(mem, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	atomic.AddUint32((*uint32)(start), 0) // a write that changes nothing
	if err := syscall.Mprotect(mem, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}
	written := func(ms []mapping) *mapping {
		for i, m := range ms {
			if m.lo <= uint64(page) && uint64(page) < m.hi {
				return &ms[i]
			}
		}
		t.Fatalf("no mapping holds %#x", page)
		return nil
	}
	before := exeMappings(t)
	if w := written(before); w.anonymous == 0 {
		t.Fatalf("the written page is not a private copy: %+v", *w)
	}

	kib, err := ReleaseStartupPages()
	if err != nil {
		t.Fatal(err)
	}
	after := exeMappings(t)
	if kib == 0 || readOnlyRSS(after) >= readOnlyRSS(before) {
		t.Errorf("released %d KiB; resident read-only pages of the executable: %d KiB before, %d KiB after",
			kib, readOnlyRSS(before), readOnlyRSS(after))
	}
	if w := written(after); w.anonymous == 0 {
		t.Errorf("the written page was dropped: %+v", *w)
	}
	// The program runs on: code, types and constants come back.
	b, err := json.Marshal(map[string]any{"probe": probe, "n": []int{1, 2}})
	if err != nil || string(b) != `{"n":[1,2],"probe":"`+probe+`"}` {
		t.Fatalf("after release: %s, %v", b, err)
	}
}
