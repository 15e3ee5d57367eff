//go:build linux

package sandbox

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// BenchmarkNetnsFloor measures the least a network namespace costs a
// start without the helper, as a root harness could have it: a locked
// thread unshares a network namespace, brings lo up and opens a listener
// in it, then returns to its own; the namespace is freed when the
// listener is closed. No process is started.
func BenchmarkNetnsFloor(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("unsharing a network namespace on a thread needs CAP_SYS_ADMIN")
	}
	runtime.LockOSThread()
	// The thread ends with the benchmark's goroutine, not reused in
	// another namespace.
	home, err := syscall.Open("/proc/thread-self/ns/net", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(home)
	for b.Loop() {
		if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
			b.Fatal(err)
		}
		if err := loopbackUp(); err != nil {
			b.Fatal(err)
		}
		fd, err := listenTCP("127.0.0.1:8080")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, e := syscall.RawSyscall(sysSetns, uintptr(home), syscall.CLONE_NEWNET, 0); e != 0 {
			b.Fatal(e)
		}
		_ = syscall.Close(fd)
	}
}

const sysSetns = 308 // setns on amd64
