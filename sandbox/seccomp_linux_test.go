package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// sockAttacks are the hostile agent's socket attacks that Landlock alone
// does not stop.
var sockAttacks = map[string]func(a []string) error{
	// udpsend sends a datagram to a loopback port, waiting for no answer:
	// the test's listener counts what arrives.
	"udpsend": func(a []string) error {
		c, err := net.Dial("udp", "127.0.0.1:"+a[0])
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("ping"))
		return err
	},
	// pairsend sends a datagram to a unix datagram socket by its path
	// from one end of a datagram socket pair, without socket(AF_UNIX).
	"pairsend": func(a []string) error {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fds[0])
		defer syscall.Close(fds[1])
		return syscall.Sendto(fds[0], []byte("ping"), 0, &syscall.SockaddrUnix{Name: a[0]})
	},
	// streampair makes a stream socket pair, as node, shells and Rust do
	// for a child's pipes, and passes a byte through it.
	"streampair": func(a []string) error {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fds[0])
		defer syscall.Close(fds[1])
		if _, err := syscall.Write(fds[0], []byte{1}); err != nil {
			return err
		}
		_, err = syscall.Read(fds[1], make([]byte, 1))
		return err
	},
	// mptcp connects to a loopback port with a multipath TCP socket,
	// which Landlock's TCP rules do not cover.
	"mptcp": func(a []string) error {
		const ipprotoMPTCP = 262
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, ipprotoMPTCP)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		p, _ := strconv.Atoi(a[0])
		return syscall.Connect(fd, &syscall.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}})
	},
	// iouring sets up an io_uring, whose operations (IORING_OP_SOCKET,
	// IORING_OP_CONNECT) no seccomp filter sees.
	"iouring": func(a []string) error {
		var params [120]byte // struct io_uring_params
		fd, _, e := syscall.RawSyscall(425, 4, uintptr(unsafe.Pointer(&params)), 0)
		if e != 0 {
			return e
		}
		return syscall.Close(int(fd))
	},
	// listen listens on a loopback TCP port with Go's defaults, which
	// try multipath TCP first (Go 1.24) and fall back to TCP.
	"listen": func(a []string) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		return ln.Close()
	},
	// netlink opens a netlink route socket, as getifaddrs does.
	"netlink": func(a []string) error {
		fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
		if err != nil {
			return err
		}
		return syscall.Close(fd)
	},
}

// counted is a listener of the test's that counts what reaches it.
type counted struct {
	n   atomic.Int64
	hit chan struct{} // a value per arrival; made by mark's first use
	mu  sync.Mutex
}

// mark counts one arrival and wakes settle.
func (c *counted) mark() {
	c.n.Add(1)
	select {
	case c.arrivals() <- struct{}{}:
	default:
	}
}

// arrivals is c's arrival channel, made on first use.
func (c *counted) arrivals() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hit == nil {
		c.hit = make(chan struct{}, 64)
	}
	return c.hit
}

// listenUnix listens on a unix stream socket at path and counts the
// connections it accepts.
func (c *counted) listenUnix(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.mark()
			conn.Close()
		}
	}()
}

// listenPacket listens on network ("udp", "unixgram") at addr, counts the
// datagrams that arrive and echoes each; it returns the address.
func (c *counted) listenPacket(t *testing.T, network, addr string) net.Addr {
	t.Helper()
	pc, err := net.ListenPacket(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			c.mark()
			if from != nil && from.String() != "" {
				_, _ = pc.WriteTo(buf[:n], from)
			}
		}
	}()
	return pc.LocalAddr()
}

// settle waits until c has counted want, woken by each arrival (a minute
// bounds a hang, it decides nothing). With want 0 it gives a datagram or a
// connection already sent a short grace to arrive: that wait can only let
// an arrival go unseen, never fail a test that should pass.
func (c *counted) settle(want int64) int64 {
	bound := time.NewTimer(time.Minute)
	if want == 0 {
		bound.Reset(100 * time.Millisecond)
	}
	defer bound.Stop()
	for c.n.Load() < max(want, 1) {
		select {
		case <-c.arrivals():
		case <-bound.C:
			return c.n.Load()
		}
	}
	return c.n.Load()
}

// TestHostileSocketsAreDenied: at the default level, an agent reaches no
// unix socket by its path (in /tmp, in $HOME, from a datagram socket
// pair), no loopback UDP port, no loopback TCP port through multipath
// TCP, and gets no io_uring; the test's listeners see nothing. Each
// attack succeeds at level limits (no Landlock, no filter), so the test
// can fail. Stream socket pairs, netlink sockets and Go's TCP listeners
// still work.
func TestHostileSocketsAreDenied(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	sockDir, err := os.MkdirTemp("/tmp", "lux-seccomp-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var tcp counted
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tcp.n.Add(1)
			c.Close()
		}
	}()
	tcpPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	var inTmp, inHome, gram, udp counted
	inTmp.listenUnix(t, filepath.Join(sockDir, "s"))
	inHome.listenUnix(t, filepath.Join(w.home, "agent.sock"))
	gram.listenPacket(t, "unixgram", filepath.Join(sockDir, "g"))
	udpPort := strconv.Itoa(udp.listenPacket(t, "udp", "127.0.0.1:0").(*net.UDPAddr).Port)
	tests := []struct {
		name string
		args []string
		seen *counted
	}{
		{"a unix socket in /tmp", []string{"unix", filepath.Join(sockDir, "s")}, &inTmp},
		{"a unix socket in $HOME", []string{"unix", filepath.Join(w.home, "agent.sock")}, &inHome},
		{"a unix datagram socket from a socket pair", []string{"pairsend", filepath.Join(sockDir, "g")}, &gram},
		{"UDP to a loopback port", []string{"udpsend", udpPort}, &udp},
		{"multipath TCP to a loopback port not allowed", []string{"mptcp", tcpPort}, &tcp},
		{"io_uring", []string{"iouring"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := w.run(Config{})
			if got := hostile(t, r, tt.args...); !strings.HasPrefix(got, "DENIED") {
				t.Errorf("sandboxed: %s", got)
			}
			if tt.seen != nil {
				if n := tt.seen.settle(0); n != 0 {
					t.Errorf("the test's listener saw %d connections or datagrams from the sandboxed agent", n)
				}
				tt.seen.n.Store(0)
			}
			if in := r.Info(); in == nil || in.Seccomp != "unix sockets, UDP, sockets other than TCP, UDP and netlink, io_uring" {
				t.Errorf("info = %+v, want what the filter denies", in)
			}
			if got := hostile(t, w.run(Config{Level: LevelLimits}), tt.args...); got != "ALLOWED" {
				t.Errorf("at level limits the attack fails too, so the test proves nothing: %s", got)
			}
			if tt.seen != nil {
				if n := tt.seen.settle(1); n != 1 {
					t.Errorf("at level limits the test's listener saw %d connections or datagrams, want 1", n)
				}
				tt.seen.n.Store(0)
			}
		})
	}
	for _, args := range [][]string{{"streampair"}, {"netlink"}, {"listen"}} {
		if got := hostile(t, w.run(Config{}), args...); got != "ALLOWED" {
			t.Errorf("%v: %s", args, got)
		}
	}
}

// TestNameResolutionAllowsUDP: a run whose allowed endpoints name a host
// to resolve may send UDP (a name server is reached over it), and the
// record says why; unix sockets stay denied.
func TestNameResolutionAllowsUDP(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	var udp, sock counted
	udpPort := strconv.Itoa(udp.listenPacket(t, "udp", "127.0.0.1:0").(*net.UDPAddr).Port)
	path := filepath.Join(w.home, "agent.sock")
	sock.listenUnix(t, path)
	for _, tc := range []struct {
		name string
		c    Config
		env  []string
		want string
	}{
		{"an endpoint in the environment", Config{}, []string{"ANTHROPIC_BASE_URL=https://api.example.com"}, "api.example.com"},
		{"allowHosts", Config{AllowHosts: []string{"127.0.0.1:8080", "models.example.org:443"}}, nil, "models.example.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.c)
			if got := hostileEnv(t, r, tc.env, "udpsend", udpPort); got != "ALLOWED" {
				t.Errorf("UDP: %s", got)
			}
			if n := udp.settle(1); n != 1 {
				t.Errorf("the UDP listener saw %d datagrams, want 1", n)
			}
			udp.n.Store(0)
			want := "unix sockets, sockets other than TCP, UDP and netlink, io_uring (UDP allowed: name resolution for " + tc.want + ")"
			if in := r.Info(); in == nil || in.Seccomp != want {
				t.Errorf("info = %+v, want seccomp %q", in, want)
			}
			if got := hostileEnv(t, w.run(tc.c), tc.env, "unix", path); !strings.HasPrefix(got, "DENIED") {
				t.Errorf("a unix socket: %s", got)
			}
			if n := sock.settle(0); n != 0 {
				t.Errorf("the unix listener saw %d connections", n)
			}
			sock.n.Store(0)
		})
	}
	// An IP literal or localhost needs no name server.
	r := w.run(Config{AllowHosts: []string{"localhost:8080", "[::1]:9000"}})
	if got := hostileEnv(t, r, []string{"OPENAI_BASE_URL=http://127.0.0.1:9"}, "udpsend", udpPort); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("UDP with only IP literals and localhost allowed: %s", got)
	}
}

// TestSeccompThroughTheHelper: the helper installs the same filter
// before it execs the agent.
func TestSeccompThroughTheHelper(t *testing.T) {
	requireLandlock(t)
	forceHelper.Store(true)
	defer forceHelper.Store(false)
	w := newWorld(t)
	var sock counted
	path := filepath.Join(w.home, "agent.sock")
	sock.listenUnix(t, path)
	if got := hostile(t, w.run(Config{}), "unix", path); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("a unix socket through the helper: %s", got)
	}
	if got := hostile(t, w.run(Config{}), "streampair"); got != "ALLOWED" {
		t.Errorf("a stream socket pair through the helper: %s", got)
	}
	if n := sock.settle(0); n != 0 {
		t.Errorf("the unix listener saw %d connections", n)
	}
}

// runFilter interprets prog, as the kernel does, for a system call nr of
// audit architecture arch with args.
func runFilter(t *testing.T, prog []sockFilter, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	le := func(off int, v uint32) {
		data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	le(offNr, nr)
	le(offArch, arch)
	for i, a := range args {
		le(offArg+8*i, uint32(a))
		le(offArg+8*i+4, uint32(a>>32))
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case bpfLdWAbs:
			k := int(in.k)
			acc = uint32(data[k]) | uint32(data[k+1])<<8 | uint32(data[k+2])<<16 | uint32(data[k+3])<<24
		case bpfAndK:
			acc &= in.k
		case bpfJeqK, bpfJgeK:
			hold := acc == in.k
			if in.code == bpfJgeK {
				hold = acc >= in.k
			}
			if hold {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case bpfRetK:
			return in.k
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// TestSocketFilterProgram checks the filter's decisions on each
// architecture it is built for, this machine's or not.
func TestSocketFilterProgram(t *testing.T) {
	const (
		allow  = seccompRetAllow
		deny   = seccompRetErrno | uint32(syscall.EACCES)
		enosys = seccompRetErrno | uint32(syscall.ENOSYS)
		kill   = seccompRetKillProcess
		mptcp  = 262
		flags  = syscall.SOCK_NONBLOCK | syscall.SOCK_CLOEXEC
	)
	for name, arch := range filterArches {
		for _, denyUDP := range []bool{true, false} {
			prog := socketFilter(arch, denyUDP)
			udp := uint32(allow)
			if denyUDP {
				udp = deny
			}
			for _, tc := range []struct {
				what string
				arch uint32
				nr   uint32
				args []uint64
				want uint32
			}{
				{"read", arch.audit, 0, nil, allow},
				{"another ABI", 0x40000003, 1, nil, kill},
				{"unix stream", arch.audit, arch.socket, []uint64{syscall.AF_UNIX, syscall.SOCK_STREAM | flags, 0}, deny},
				{"unix, high bits set in the domain", arch.audit, arch.socket, []uint64{1<<32 | syscall.AF_UNIX, syscall.SOCK_STREAM, 0}, deny},
				{"tcp", arch.audit, arch.socket, []uint64{syscall.AF_INET, syscall.SOCK_STREAM | flags, 0}, allow},
				{"tcp6 IPPROTO_TCP", arch.audit, arch.socket, []uint64{syscall.AF_INET6, syscall.SOCK_STREAM, syscall.IPPROTO_TCP}, allow},
				{"mptcp", arch.audit, arch.socket, []uint64{syscall.AF_INET, syscall.SOCK_STREAM, mptcp}, deny},
				{"sctp seqpacket", arch.audit, arch.socket, []uint64{syscall.AF_INET, syscall.SOCK_SEQPACKET, 132}, deny},
				{"udp", arch.audit, arch.socket, []uint64{syscall.AF_INET, syscall.SOCK_DGRAM | flags, 0}, udp},
				{"udp6", arch.audit, arch.socket, []uint64{syscall.AF_INET6, syscall.SOCK_DGRAM, syscall.IPPROTO_UDP}, udp},
				{"raw", arch.audit, arch.socket, []uint64{syscall.AF_INET, syscall.SOCK_RAW, 1}, deny},
				{"packet", arch.audit, arch.socket, []uint64{syscall.AF_PACKET, syscall.SOCK_DGRAM, 0}, deny},
				{"netlink", arch.audit, arch.socket, []uint64{syscall.AF_NETLINK, syscall.SOCK_RAW | flags, 0}, allow},
				{"vsock", arch.audit, arch.socket, []uint64{40, syscall.SOCK_STREAM, 0}, deny},
				{"stream pair", arch.audit, arch.socketpr, []uint64{syscall.AF_UNIX, syscall.SOCK_STREAM | flags, 0}, allow},
				{"seqpacket pair", arch.audit, arch.socketpr, []uint64{syscall.AF_UNIX, syscall.SOCK_SEQPACKET, 0}, allow},
				{"datagram pair", arch.audit, arch.socketpr, []uint64{syscall.AF_UNIX, syscall.SOCK_DGRAM | flags, 0}, deny},
				{"io_uring_setup", arch.audit, sysIoUringSetup, nil, enosys},
			} {
				if got := runFilter(t, prog, tc.arch, tc.nr, tc.args...); got != tc.want {
					t.Errorf("%s, deny UDP %v, %s: %#x, want %#x", name, denyUDP, tc.what, got, tc.want)
				}
			}
			if arch.x32 {
				if got := runFilter(t, prog, arch.audit, x32SyscallBit|arch.socket, syscall.AF_UNIX, syscall.SOCK_STREAM, 0); got != kill {
					t.Errorf("%s: an x32 system call: %#x, want kill", name, got)
				}
			}
		}
	}
}

// TestSelfTestSeesTheFilter: lux doctor's self-test finds the filter in
// force in its confined shell, at the default level and through the
// helper.
func TestSelfTestSeesTheFilter(t *testing.T) {
	requireLandlock(t)
	for _, helper := range []bool{false, true} {
		forceHelper.Store(helper)
		in, err := SelfTest(Config{})
		forceHelper.Store(false)
		if err != nil {
			t.Fatalf("helper %v: %v", helper, err)
		}
		if in.Seccomp == "" {
			t.Errorf("helper %v: info = %+v, want what the filter denies", helper, in)
		}
	}
}
