package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// nsSpec is what the helper does inside the namespaces the harness
// started it in (level landlock+netns), before it confines itself: bring
// the loopback interface up, open the listeners the harness serves and
// hand them over, and hide the directories where other programs keep
// their unix sockets.
type nsSpec struct {
	// Listen are the TCP addresses inside the namespace the harness
	// serves (forwarded model endpoints, the HTTP proxy). The helper
	// opens each and sends them over FD, in order, with one byte per
	// address: '1' opened, '0' not (an Optional one it could not open).
	Listen []listenSpec `json:"listen,omitempty"`
	// FD is the helper's end of a socketpair to the harness.
	FD int `json:"fd"`
	// Mask are directories covered with an empty tmpfs in the run's own
	// mount namespace; Keep are paths below them bound back on top (the
	// run's workspace, the agent's command).
	Mask []string `json:"mask,omitempty"`
	Keep []string `json:"keep,omitempty"`
	// Proc mounts a fresh /proc with hidepid=ptraceable: a process the
	// agent may not ptrace-read (Landlock: any outside its sandbox) is
	// not listed. Mounting one needs CAP_SYS_ADMIN over the pid namespace:
	// as root only.
	Proc bool `json:"proc,omitempty"`
	// Ambient: the helper is in a user namespace of its own, with
	// ambient capabilities there, which it drops before it execs the
	// agent; it first maps UID and GID (the harness's) to themselves.
	Ambient  bool `json:"ambient,omitempty"`
	UID, GID int  `json:",omitempty"`
}

type listenSpec struct {
	Addr     string `json:"addr"`
	Optional bool   `json:"optional,omitempty"`
}

// enter does in the helper what n says.
func (n *nsSpec) enter() error {
	if n.Ambient {
		for _, m := range []struct{ file, text string }{
			{"/proc/self/setgroups", "deny"},
			{"/proc/self/uid_map", fmt.Sprintf("%d %d 1", n.UID, n.UID)},
			{"/proc/self/gid_map", fmt.Sprintf("%d %d 1", n.GID, n.GID)},
		} {
			if err := os.WriteFile(m.file, []byte(m.text), 0); err != nil {
				return fmt.Errorf("user namespace: %v", err)
			}
		}
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring lo up: %v", err)
	}
	if err := n.listen(); err != nil {
		return err
	}
	if len(n.Mask) > 0 {
		if err := mask(n.Mask, n.Keep); err != nil {
			return err
		}
	}
	if n.Proc {
		if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "hidepid=ptraceable"); err != nil {
			return fmt.Errorf("mount a private /proc: %v", err)
		}
	}
	if n.Ambient {
		const prCapAmbient, clearAll = 47, 4
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, clearAll, 0, 0, 0, 0); e != 0 {
			return fmt.Errorf("drop ambient capabilities: %v", e)
		}
	}
	return nil
}

// ifreq is struct ifreq for SIOC[GS]IFFLAGS: the name, then the flags.
type ifreq struct {
	name  [16]byte
	flags uint16
	_     [22]byte
}

// loopbackUp sets lo up (a fresh network namespace has it down), through
// a TCP socket: a helper started by a harness that runs under the seccomp
// filter itself (lux inside a sandboxed agent) may not open UDP ones.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req ifreq
	copy(req.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return e
	}
	req.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&req))); e != 0 {
		return e
	}
	return nil
}

// listen opens n's listeners and sends them to the harness.
func (n *nsSpec) listen() error {
	defer syscall.Close(n.FD)
	var fds []int
	defer func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}()
	opened := make([]byte, 0, len(n.Listen)+1)
	for _, l := range n.Listen {
		fd, err := listenTCP(l.Addr)
		if err != nil {
			if l.Optional {
				opened = append(opened, '0')
				continue
			}
			return fmt.Errorf("listen on %s: %v", l.Addr, err)
		}
		fds = append(fds, fd)
		opened = append(opened, '1')
	}
	opened = append(opened, '\n')
	if err := syscall.Sendmsg(n.FD, opened, syscall.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("hand the listeners to the harness: %v", err)
	}
	return nil
}

func listenTCP(addr string) (int, error) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return -1, errors.New("no port")
	}
	host := strings.Trim(addr[:i], "[]")
	p, err := strconv.Atoi(addr[i+1:])
	if err != nil {
		return -1, err
	}
	var sa syscall.Sockaddr
	family := syscall.AF_INET
	if host == "::1" {
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: p, Addr: [16]byte{15: 1}}
	} else {
		sa = &syscall.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	if family == syscall.AF_INET6 {
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1)
	}
	if err := syscall.Bind(fd, sa); err != nil {
		_ = syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Listen(fd, 128); err != nil {
		_ = syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// mask covers each directory of dirs with an empty tmpfs, in a mount
// namespace of the run's own, and binds each path of keep below one of
// them back in place: what the agent may use stays, and the unix sockets
// other programs keep there (a desktop bus, a container engine, another
// run's tools) are gone from its view, which Landlock alone does not give
// (connecting to a socket file is not a Landlock right before ABI 9).
func mask(dirs, keep []string) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %v", err)
	}
	dirs = slices.Clone(dirs)
	slices.SortFunc(dirs, func(a, b string) int { return len(a) - len(b) })
	var masked []string
	for _, d := range dirs {
		if slices.ContainsFunc(masked, func(m string) bool { return within(d, m) }) {
			continue
		}
		if st, err := os.Lstat(d); err != nil || !st.IsDir() {
			continue // absent, a file or a symlink (/var/run): nothing to hide
		}
		masked = append(masked, d)
	}
	type kept struct {
		path string
		fd   int
		dir  bool
	}
	keep = slices.Clone(keep)
	slices.SortFunc(keep, func(a, b string) int { return len(a) - len(b) })
	var ks []kept
	defer func() {
		for _, k := range ks {
			_ = syscall.Close(k.fd)
		}
	}()
	for _, p := range keep {
		if p == "" || !filepath.IsAbs(p) || !slices.ContainsFunc(masked, func(m string) bool { return within(p, m) }) {
			continue
		}
		if slices.ContainsFunc(ks, func(k kept) bool { return k.dir && within(p, k.path) }) {
			continue // visible through a kept parent
		}
		fd, err := syscall.Open(p, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		_ = syscall.Fstat(fd, &st)
		ks = append(ks, kept{path: filepath.Clean(p), fd: fd, dir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR})
	}
	for _, d := range masked {
		if err := syscall.Mount("tmpfs", d, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=1m"); err != nil {
			return fmt.Errorf("mask %s: %v", d, err)
		}
	}
	for _, k := range ks {
		if k.dir {
			if err := os.MkdirAll(k.path, 0o755); err != nil {
				return fmt.Errorf("keep %s: %v", k.path, err)
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(k.path), 0o755); err != nil {
				return fmt.Errorf("keep %s: %v", k.path, err)
			}
			if f, err := os.OpenFile(k.path, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				_ = f.Close()
			}
		}
		src := "/proc/self/fd/" + strconv.Itoa(k.fd)
		if err := syscall.Mount(src, k.path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("keep %s: %v", k.path, err)
		}
	}
	return nil
}
