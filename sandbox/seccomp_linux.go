package sandbox

import (
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// The seccomp filter closes what Landlock leaves open on the network: a
// unix socket reached by its path (connecting to a socket file is not a
// Landlock right on ABI 7 kernels), UDP (Landlock has no UDP rules),
// stream protocols other than TCP (multipath TCP and SCTP are outside
// Landlock's TCP rules), raw and packet sockets, and io_uring, whose
// socket and connect operations no seccomp filter sees. It is installed
// on the confined thread (or in the helper) after no_new_privs, without
// SECCOMP_FILTER_FLAG_TSYNC: it holds for that thread, the agent forked
// from it, and what the agent execs.
//
// What it lets through: TCP and netlink sockets (getifaddrs), stream and
// seqpacket socket pairs (node, shells and Rust make a child's pipes of
// them), and UDP when the run names a host to resolve (a name server is
// reached over UDP).

// seccomp's and classic BPF's constants (linux/seccomp.h, linux/filter.h,
// linux/audit.h).
const (
	seccompSetModeFilter   = 1
	seccompGetActionAvail  = 2
	seccompRetKillProcess  = 0x80000000
	seccompRetErrno        = 0x00050000
	seccompRetAllow        = 0x7fff0000
	bpfLdWAbs              = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK                = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK                = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfAndK                = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK                = 0x06 // BPF_RET | BPF_K
	sysIoUringSetup        = 425  // the same number on every architecture
	x32SyscallBit          = 0x40000000
	ipprotoTCP             = 6
	sockTypeMask           = 0xf // SOCK_NONBLOCK and SOCK_CLOEXEC are above it
	offNr, offArch, offArg = 0, 4, 16
)

// seccompArch is what the filter checks on this architecture: the audit
// architecture first (a system call of another ABI, as from a 32-bit
// program, kills the process), then the system calls' numbers.
type seccompArch struct {
	audit                        uint32
	x32                          bool // syscall numbers with x32's bit are of another ABI
	sysSeccomp, socket, socketpr uint32
}

// filterArches are the architectures the filter is built for, by GOARCH.
var filterArches = map[string]*seccompArch{
	"amd64": {audit: 0xc000003e, x32: true, sysSeccomp: 317, socket: 41, socketpr: 53},
	"arm64": {audit: 0xc00000b7, sysSeccomp: 277, socket: 198, socketpr: 199},
}

// filterArch is this architecture's, or nil where the filter is not
// built (the record says so).
var filterArch = filterArches[runtime.GOARCH]

// sockFilter is struct sock_filter; sockFprog struct sock_fprog.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	n      uint16
	filter *sockFilter
}

// asm assembles a classic BPF program whose jumps name labels; a label
// is an instruction of its own (op == "label").
type asm struct {
	prog   []sockFilter
	labels map[string]int
	fix    []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (a *asm) label(name string) { a.labels[name] = len(a.prog) }

func (a *asm) op(code uint16, k uint32) { a.prog = append(a.prog, sockFilter{code: code, k: k}) }

// jump is a conditional jump: to jt when the test holds, else to jf
// ("" is the next instruction).
func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.fix = append(a.fix, fixup{at: len(a.prog), jt: jt, jf: jf})
	a.op(code, k)
}

func (a *asm) done() []sockFilter {
	for _, f := range a.fix {
		off := func(l string) uint8 {
			if l == "" {
				return 0
			}
			to, ok := a.labels[l]
			d := to - f.at - 1
			if !ok || d < 0 || d > 255 {
				panic("sandbox: seccomp: bad jump to " + l)
			}
			return uint8(d)
		}
		a.prog[f.at].jt, a.prog[f.at].jf = off(f.jt), off(f.jf)
	}
	return a.prog
}

// socketFilter is the filter's program for arch; denyUDP denies UDP (and
// any other datagram socket of IPv4 and IPv6) as well.
func socketFilter(arch *seccompArch, denyUDP bool) []sockFilter {
	a := &asm{labels: map[string]int{}}
	a.op(bpfLdWAbs, offArch)
	a.jump(bpfJeqK, arch.audit, "", "kill")
	a.op(bpfLdWAbs, offNr)
	if arch.x32 {
		a.jump(bpfJgeK, x32SyscallBit, "kill", "")
	}
	a.jump(bpfJeqK, arch.socket, "socket", "")
	a.jump(bpfJeqK, arch.socketpr, "pair", "")
	a.jump(bpfJeqK, sysIoUringSetup, "enosys", "allow")

	// socket(domain, type, protocol): the low 32 bits of each argument,
	// as the kernel reads them (ints).
	a.label("socket")
	a.op(bpfLdWAbs, offArg)
	a.jump(bpfJeqK, syscall.AF_INET, "inet", "")
	a.jump(bpfJeqK, syscall.AF_INET6, "inet", "")
	a.jump(bpfJeqK, syscall.AF_NETLINK, "allow", "deny")
	a.label("inet")
	a.op(bpfLdWAbs, offArg+8)
	a.op(bpfAndK, sockTypeMask)
	a.jump(bpfJeqK, syscall.SOCK_STREAM, "", "notstream")
	a.op(bpfLdWAbs, offArg+16)
	a.jump(bpfJeqK, 0, "allow", "")
	a.jump(bpfJeqK, ipprotoTCP, "allow", "deny")
	a.label("notstream")
	if denyUDP {
		a.jump(bpfJeqK, 0, "deny", "deny")
	} else {
		a.jump(bpfJeqK, syscall.SOCK_DGRAM, "allow", "deny")
	}

	// socketpair(domain, type, ...): a datagram pair may send to any
	// unix datagram socket by its path (sendto).
	a.label("pair")
	a.op(bpfLdWAbs, offArg+8)
	a.op(bpfAndK, sockTypeMask)
	a.jump(bpfJeqK, syscall.SOCK_DGRAM, "deny", "allow")

	a.label("allow")
	a.op(bpfRetK, seccompRetAllow)
	a.label("deny")
	a.op(bpfRetK, seccompRetErrno|uint32(syscall.EACCES))
	a.label("enosys")
	a.op(bpfRetK, seccompRetErrno|uint32(syscall.ENOSYS))
	a.label("kill")
	a.op(bpfRetK, seccompRetKillProcess)
	return a.done()
}

// filters are the two programs, assembled once and never freed (the
// kernel copies a program when it installs it).
var filters = sync.OnceValue(func() (f [2]sockFprog) {
	if filterArch == nil {
		return f
	}
	for i, denyUDP := range []bool{false, true} {
		p := socketFilter(filterArch, denyUDP)
		f[i] = sockFprog{n: uint16(len(p)), filter: &p[0]}
	}
	return f
})

// seccompProbe is why this kernel cannot take the filter, or nil: seccomp
// filters with SECCOMP_RET_KILL_PROCESS (Linux 4.14).
var seccompProbe = sync.OnceValue(func() error {
	if filterArch == nil {
		return fmt.Errorf("not built for %s", runtime.GOARCH)
	}
	action := uint32(seccompRetKillProcess)
	_, _, e := syscall.RawSyscall(uintptr(filterArch.sysSeccomp), seccompGetActionAvail, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		return fmt.Errorf("seccomp filters: %v", e)
	}
	return nil
})

// installFilter installs the socket filter on the calling thread, which
// has no_new_privs set.
func installFilter(denyUDP bool) error {
	f := filters()
	p := &f[0]
	if denyUDP {
		p = &f[1]
	}
	if p.n == 0 {
		return fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	_, _, e := syscall.RawSyscall(uintptr(filterArch.sysSeccomp), seccompSetModeFilter, 0, uintptr(unsafe.Pointer(p)))
	if e != 0 {
		return e
	}
	return nil
}

// resolvedHosts are the hosts of the run's endpoints (its environment,
// arguments and driver) and of Config.AllowHosts that are names to
// resolve: neither an IP literal nor localhost.
func (r *Run) resolvedHosts(env, args, urls []string) []string {
	var out []string
	add := func(h string) {
		h = strings.ToLower(strings.Trim(h, "[]"))
		if h == "" || h == "localhost" || net.ParseIP(h) != nil || slices.Contains(out, h) {
			return
		}
		out = append(out, h)
	}
	for _, u := range endpoints(env, args, urls) {
		add(u.Hostname())
	}
	for _, hp := range r.Config.AllowHosts {
		if h, _, err := net.SplitHostPort(hp); err == nil {
			add(h)
		}
	}
	slices.Sort(out)
	return out
}

// seccompPlan sets s's filter for a run whose agent reaches the hosts of
// env, args and urls, and records it in info.
func (r *Run) seccompPlan(s *spec, info *Info, env, args, urls []string) {
	if err := seccompProbe(); err != nil {
		info.Refused = append(info.Refused, "seccomp: "+err.Error()+" (unix sockets by their path and UDP can be reached)")
		return
	}
	s.Seccomp = true
	hosts := r.resolvedHosts(env, args, urls)
	s.AllowUDP = len(hosts) > 0
	const others = "sockets other than TCP, UDP and netlink, io_uring"
	if s.AllowUDP {
		info.Seccomp = "unix sockets, " + others + " (UDP allowed: name resolution for " + strings.Join(hosts, ", ") + ")"
	} else {
		info.Seccomp = "unix sockets, UDP, " + others
	}
}
