package proc

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// StartMarker is what tells process pid apart from a later process that
// reuses its id: on Linux the boot id and the process's start time in
// clock ticks since boot ("<boot-id>/<ticks>"); "" where the system does
// not say, or when pid does not exist.
func StartMarker(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	// "pid (comm) state ppid ...": starttime is field 22, the 20th after
	// the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + fields[19]
}

// SameProcess reports whether process pid is alive and is the process
// whose StartMarker was marker: a recycled pid is not the same process.
// With an empty marker only liveness is checked.
func SameProcess(pid int, marker string) bool {
	if !Alive(pid) {
		return false
	}
	return marker == "" || StartMarker(pid) == marker
}
