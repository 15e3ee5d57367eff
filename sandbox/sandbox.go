// Package sandbox confines an agent's process tree on Linux without root
// and without a container runtime.
//
// The harness does not confine itself. It starts the agent from one OS
// thread it confines for that start only (no_new_privs, Landlock, a
// seccomp filter, the bounding set: all per thread), with the agent traced so that it stops
// at its exec while its limits and cgroups are set from an unconfined
// thread; that thread ends before the agent runs (see startConfined). A
// harness that is itself traced uses a helper instead: its own
// executable re-executed (/proc/self/exe) with a marker in the
// environment, caught by this package's init before main runs, which
// confines itself and execve's the agent. Any program linking this
// package can be the helper.
//
// Levels, weakest first (see [Level]):
//
//   - none: the agent runs as the harness's user with its access;
//   - limits: resource limits (processes, memory, file size, CPU time)
//     and no_new_privs;
//   - landlock: limits, plus Landlock: the workspace and the run's scratch
//     directory read-write, the system and toolchain read-only, nothing
//     else (the runs root, the harness's working directory, $HOME and /tmp
//     are neither readable nor writable), TCP connect only to allowed
//     ports, no signals or abstract unix sockets out of the sandbox, and no
//     ptrace or /proc/<pid>/{environ,mem,...} of a process outside it;
//     and a seccomp filter: no unix socket by its path, no UDP unless the
//     run names a host to resolve, no socket but TCP, UDP and netlink, no
//     io_uring (see seccomp_linux.go);
//   - landlock+netns: landlock, in an empty network namespace of the
//     run's own (a user namespace too when unprivileged) and a private
//     mount namespace hiding /tmp, /run and the protected directories:
//     no loopback service, UDP, unix socket of the host or outside host is
//     reachable; the model endpoints in the agent's environment are
//     forwarded from the same address inside, and other allowed hosts are
//     reached through an HTTP proxy the harness runs (HTTPS_PROXY).
//
// What a level does not contain is in the README's "Isolation" section.
package sandbox

import (
	"fmt"
	"strings"
)

// Level is how strongly an agent is confined. The zero value is
// LevelDefault: the strongest level the kernel offers.
type Level string

// The levels, weakest first.
const (
	LevelDefault  Level = ""
	LevelNone     Level = "none"
	LevelLimits   Level = "limits"
	LevelLandlock Level = "landlock"
	LevelNetns    Level = "landlock+netns"
)

var order = []Level{LevelNone, LevelLimits, LevelLandlock, LevelNetns}

// defaultLevel is the level LevelDefault asks for: landlock+netns adds a
// network and a mount namespace to each start, which costs more than the
// rest of the sandbox (see BenchmarkStart), so it is chosen, not default.
const defaultLevel = LevelLandlock

// Levels lists the levels, weakest first.
func Levels() []Level { return append([]Level(nil), order...) }

// rank is the position of l in order; -1 for the default or an unknown level.
func (l Level) rank() int {
	for i, o := range order {
		if o == l {
			return i
		}
	}
	return -1
}

// AtLeast reports whether l confines at least as much as min.
func (l Level) AtLeast(min Level) bool { return l.rank() >= min.rank() }

// ParseLevel parses a level name; "" and "auto" are LevelDefault.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "", "auto", "default":
		return LevelDefault, nil
	}
	l := Level(s)
	if l.rank() < 0 {
		return "", fmt.Errorf("sandbox: unknown level %q (want auto, %s)", s, joinLevels())
	}
	return l, nil
}

func joinLevels() string {
	names := make([]string, len(order))
	for i, l := range order {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// Limits are resource limits of the agent's processes. A zero field takes
// its default (see DefaultLimits); a negative one means no limit.
type Limits struct {
	// Processes caps the processes and threads alive at once in the
	// agent's tree: a pids cgroup where this process may create one
	// (cgroup v1 or v2), else RLIMIT_NPROC (which counts every process of
	// the user, and which the kernel does not enforce for root).
	Processes int64 `json:"processes,omitempty"`
	// MemoryBytes caps the memory of the agent's whole tree with a memory
	// cgroup where this process may create one (cgroup v1; the OOM killer
	// ends a process at the limit), else each process's writable private
	// memory (RLIMIT_DATA: the heap, anonymous mappings, thread stacks),
	// which leaves alone the large address space reservations of
	// JavaScript engines that RLIMIT_AS would refuse.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// FileBytes caps the size of a file a process writes (RLIMIT_FSIZE);
	// a write past it gets SIGXFSZ.
	FileBytes int64 `json:"fileBytes,omitempty"`
	// CPUSeconds caps each process's CPU time (RLIMIT_CPU); past it the
	// process gets SIGXCPU, then SIGKILL.
	CPUSeconds int64 `json:"cpuSeconds,omitempty"`
}

// DefaultLimits are the limits of a run that sets none: generous for a
// coding agent CLI and its tools, short of what exhausts a machine.
var DefaultLimits = Limits{
	Processes:   256,
	MemoryBytes: 2 << 30,
	FileBytes:   1 << 30,
	CPUSeconds:  3600,
}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	fill := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	fill(&l.Processes, DefaultLimits.Processes)
	fill(&l.MemoryBytes, DefaultLimits.MemoryBytes)
	fill(&l.FileBytes, DefaultLimits.FileBytes)
	fill(&l.CPUSeconds, DefaultLimits.CPUSeconds)
	return l
}

// Config chooses a run's sandbox. The zero value is the default: the
// strongest level available, required by nothing, default limits.
type Config struct {
	// Level is the level wanted; LevelDefault is the strongest the kernel
	// offers. A level the kernel cannot give degrades to the best it can,
	// and the record says what was refused.
	Level Level `json:"level,omitempty"`
	// Require refuses to start an agent below this level.
	Require Level `json:"require,omitempty"`
	// Limits are the resource limits (levels limits and above).
	Limits Limits `json:"limits,omitempty"`
	// ConnectPorts are TCP ports the agent may connect to, beyond 443 and
	// the ports of the URLs in its environment and arguments.
	ConnectPorts []int `json:"connectPorts,omitempty"`
	// AllowHosts are host:port pairs the agent may reach at level
	// landlock+netns beyond the endpoints in its environment and
	// arguments ("api.anthropic.com:443"): a loopback one is forwarded
	// into the run's network namespace, any other through the proxy. At
	// every level from landlock, one naming a host to resolve (not an IP
	// literal or localhost) lets the agent send UDP, for the name server.
	AllowHosts []string `json:"allowHosts,omitempty"`
	// ReadOnly and ReadWrite are more paths the agent may read (and
	// execute), or read and write.
	ReadOnly  []string `json:"readOnly,omitempty"`
	ReadWrite []string `json:"readWrite,omitempty"`
}

// Validate checks the levels.
func (c Config) Validate() error {
	for _, l := range []Level{c.Level, c.Require} {
		if l != LevelDefault && l.rank() < 0 {
			return fmt.Errorf("sandbox: unknown level %q (want %s)", l, joinLevels())
		}
	}
	if c.Require != LevelDefault && c.Level != LevelDefault && !c.Level.AtLeast(c.Require) {
		return fmt.Errorf("sandbox: level %s is below the required %s: raise the level or lower the requirement", c.Level, c.Require)
	}
	return nil
}

// privateDirs are the directories of a run's scratch directory that
// become the agent's HOME and TMPDIR at level landlock, by variable.
var privateDirs = map[string]string{"HOME": ".lux-home", "TMPDIR": ".lux-tmpdir"}

// PrivateDirs are the names of the directories the sandbox makes in a
// run's scratch directory for the agent's HOME and TMPDIR. A caller that
// reuses a scratch directory from run to run may empty them rather than
// remove them: making them again costs more than emptying them.
func PrivateDirs() []string { return []string{privateDirs["HOME"], privateDirs["TMPDIR"]} }
