package footprint

import (
	"os"
	"syscall"
)

// ReleaseStartupPages drops this process's mappings of the pages of its
// own executable that are read-only and unmodified (its code and
// read-only data), and returns how many KiB were resident in them.
//
// Starting a Go program runs the initialisation of every package it links
// (about 120 for lux), which touches most of the executable, and the
// kernel maps a file's pages around each page it faults in. Most of that
// code never runs again: a suite's runs execute a fraction of it. Once
// start-up is over, dropping the mappings (madvise MADV_DONTNEED) leaves
// the pages in the page cache, where other processes and the next fault
// find them; the pages the process still executes are mapped again on
// their first touch (a minor fault each, no read from disk). The process's
// resident set then holds the code it runs, not all the code it started
// with. Written pages of a read-only mapping are never dropped (see
// releasable). Elsewhere than on Linux it does nothing.
func ReleaseStartupPages() (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		return 0, err
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	var kib uint64
	for _, m := range releasable(parseSmaps(data), major, minor, st.Ino) {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.lo), uintptr(m.hi-m.lo), syscall.MADV_DONTNEED); errno != 0 {
			return kib, errno
		}
		kib += m.rss
	}
	return kib, nil
}
