package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// envSpec is the environment variable that turns a start of this program
// into the sandbox helper; its value is the JSON spec. The helper removes
// it before exec'ing the agent.
const envSpec = "LUX_SANDBOX_SPEC"

// helperExit is the helper's exit code when it cannot confine or exec the
// agent; its stderr says why, prefixed "lux-sandbox: ".
const helperExit = 125

// spec is what the helper applies before it execs the agent.
type spec struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	// Procs are cgroup.procs files the helper joins first.
	Procs []string `json:"procs,omitempty"`
	// DropCaps empties the capability bounding set but for keptCaps, so
	// that an agent run as root gets no more than a container's root.
	DropCaps bool     `json:"dropCaps,omitempty"`
	Rlimits  []rlimit `json:"rlimits,omitempty"`
	// Landlock: a ruleset handling FS, Net and Scope, allowing Rules and
	// Ports.
	Landlock bool     `json:"landlock,omitempty"`
	ABI      int      `json:"abi,omitempty"`
	FS       uint64   `json:"fs,omitempty"`
	Net      uint64   `json:"net,omitempty"`
	Scope    uint64   `json:"scope,omitempty"`
	Rules    []rule   `json:"rules,omitempty"`
	Ports    []uint16 `json:"ports,omitempty"`
	// Seccomp installs the socket filter after Landlock (see
	// installFilter); AllowUDP lets UDP through it.
	Seccomp  bool `json:"seccomp,omitempty"`
	AllowUDP bool `json:"allowUDP,omitempty"`
	// NS is set up first when the helper starts in namespaces of its own.
	NS *nsSpec `json:"ns,omitempty"`
}

type rlimit struct {
	Resource int    `json:"r"`
	Cur      uint64 `json:"c"`
	Max      uint64 `json:"m"`
}

// rule allows Access beneath Path (Access is reduced to the file rights
// when Path is not a directory; a missing Path is skipped).
type rule struct {
	Path   string `json:"p"`
	Access uint64 `json:"a"`
	// System marks the system's and the toolchain's trees, the same for
	// every run: their descriptors are opened once (see systemPath).
	System bool `json:"-"`
}

func init() {
	if v, ok := syscall.Getenv(envSpec); ok {
		helper(v)
	}
}

// helper confines this process and execs the agent; it never returns.
func helper(raw string) {
	// Landlock and no_new_privs hold for the calling thread and what it
	// execs: stay on one thread from here to execve.
	runtime.LockOSThread()
	var s spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fatal("decode spec: " + err.Error())
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envSpec+"=") {
			env = append(env, kv)
		}
	}
	if err := apply(&s); err != nil {
		fatal(err.Error())
	}
	err := syscall.Exec(s.Path, s.Argv, env)
	fatal("exec " + s.Path + ": " + err.Error())
}

// apply confines this process as s says: it joins the cgroups, sets the
// limits, then confines its thread as startConfined does.
func apply(s *spec) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, p := range s.Procs {
		if err := os.WriteFile(p, pid, 0); err != nil {
			return fmt.Errorf("join cgroup %s: %v", p, err)
		}
	}
	if s.NS != nil {
		if err := s.NS.enter(); err != nil {
			return err
		}
	}
	for _, r := range s.Rlimits {
		if err := syscall.Setrlimit(r.Resource, &syscall.Rlimit{Cur: r.Cur, Max: r.Max}); err != nil {
			return fmt.Errorf("setrlimit %d: %v", r.Resource, err)
		}
	}
	ruleset := -1
	if s.Landlock {
		fd, err := buildRuleset(s)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		ruleset = fd
	}
	return confineThread(s, ruleset)
}

func fatal(msg string) {
	_, _ = os.Stderr.WriteString("lux-sandbox: " + msg + "\n")
	os.Exit(helperExit)
}

// keptCaps are the capabilities an agent run as root keeps: a container
// runtime's default set without mknod and raw sockets. CAP_SYS_PTRACE and
// CAP_SYS_ADMIN are gone, so the harness, which makes itself
// non-dumpable, cannot be read through /proc.
var keptCaps = map[int]bool{
	0:  true, // CAP_CHOWN
	1:  true, // CAP_DAC_OVERRIDE
	3:  true, // CAP_FOWNER
	4:  true, // CAP_FSETID
	5:  true, // CAP_KILL
	6:  true, // CAP_SETGID
	7:  true, // CAP_SETUID
	8:  true, // CAP_SETPCAP
	10: true, // CAP_NET_BIND_SERVICE
	18: true, // CAP_SYS_CHROOT
	29: true, // CAP_AUDIT_WRITE
	31: true, // CAP_SETFCAP
}

const (
	prCapbsetRead = 23
	prCapbsetDrop = 24
	lastCap       = 63
)

func dropCaps() error {
	for _, c := range capsToDrop() {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0, 0, 0, 0); e != 0 && e != syscall.EINVAL {
			return e
		}
	}
	return nil
}

// capsToDrop are the capabilities dropCaps drops: every one this kernel
// knows (PR_CAPBSET_READ refuses the others with EINVAL) but keptCaps,
// found once per process.
var capsToDrop = sync.OnceValue(func() []int {
	var out []int
	for c := 0; c <= lastCap; c++ {
		_, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0, 0, 0, 0)
		if e == syscall.EINVAL {
			break // beyond the last capability of this kernel
		}
		if !keptCaps[c] {
			out = append(out, c)
		}
	}
	return out
})
