package cursor

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killTagged sends SIGKILL to every process this user may inspect whose
// environment holds tag (a "KEY=value" entry), except this process. It
// repeats the scan until none is found (at most a few rounds, for a
// process that spawns while being killed) and returns the pids it killed.
//
// It finds what stopping a process group cannot: the CLI's worker-server
// is started detached (a new session, so a new process group) and outlives
// the CLI with parent 1, but it inherits the environment.
func killTagged(tag string) []int {
	want := []byte(tag)
	self := os.Getpid()
	var killed []int
	seen := map[int]bool{}
	for round := 0; round < 5; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return killed
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !hasEntry(env, want) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
				if !seen[pid] {
					seen[pid] = true
					killed = append(killed, pid)
				}
			}
		}
		if found == 0 {
			break
		}
	}
	return killed
}

// hasEntry reports whether the NUL-separated environ holds entry exactly.
func hasEntry(environ, entry []byte) bool {
	for len(environ) > 0 {
		i := bytes.IndexByte(environ, 0)
		if i < 0 {
			return bytes.Equal(environ, entry)
		}
		if bytes.Equal(environ[:i], entry) {
			return true
		}
		environ = environ[i+1:]
	}
	return false
}
