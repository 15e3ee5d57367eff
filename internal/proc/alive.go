package proc

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether process pid exists and has not ended. A zombie (an
// ended process its parent has not yet reaped) counts as ended where the
// system says so (Linux /proc).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !procMounted()
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	switch stat[i+2] {
	case 'Z', 'X', 'x':
		return false
	}
	return true
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
