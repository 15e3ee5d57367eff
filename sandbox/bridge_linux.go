package sandbox

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// proxyPort is the port of the HTTP proxy inside a run's network
// namespace, unless a forwarded endpoint uses it.
const proxyPort = 3128

// maskedDirs are where programs keep their unix sockets; a run's mount
// namespace covers them (and the run's protected directories) with an
// empty tmpfs.
var maskedDirs = []string{"/tmp", "/var/tmp", "/run", "/dev/shm"}

var nsProbe struct {
	once sync.Once
	err  error
}

// namespacesProbe starts /bin/true in the namespaces a landlock+netns run
// gets, once: nil when this machine lets this process create them.
func namespacesProbe() error {
	if forcedNoNamespaces.Load() {
		return syscall.EPERM
	}
	nsProbe.once.Do(func() {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		setNamespaces(cmd.SysProcAttr)
		if err := cmd.Run(); err != nil {
			nsProbe.err = err
		}
	})
	return nsProbe.err
}

var forcedNoNamespaces atomic.Bool

// ForceNoNamespaces makes this process behave as on a machine that
// refuses it the namespaces of level landlock+netns (EPERM), for tests of
// the fallback; false restores the machine's answer.
func ForceNoNamespaces(on bool) { forcedNoNamespaces.Store(on) }

// setNamespaces asks for a network and a mount namespace; unprivileged,
// inside a user namespace, with the capabilities the helper needs to set
// them up kept across its exec. It reports whether the helper is in a
// user namespace: it then maps this process's user and group to
// themselves (files keep their owners) and drops those capabilities.
//
// The helper writes its own maps: this process is not dumpable
// (hideHarness), nor is its child until it execs, so the child's
// /proc/<pid>/uid_map is root's and this process may not write it.
func setNamespaces(a *syscall.SysProcAttr) bool {
	a.Cloneflags |= syscall.CLONE_NEWNET | syscall.CLONE_NEWNS
	if os.Geteuid() == 0 {
		return false
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER
	// CAP_NET_BIND_SERVICE: an endpoint on a port below 1024 is
	// forwarded from the same port.
	const capNetBindService, capNetAdmin, capSysAdmin = 10, 12, 21
	a.AmbientCaps = []uintptr{capNetBindService, capNetAdmin, capSysAdmin}
	return true
}

// netnsPlan lowers p to landlock when this machine refuses the
// namespaces.
func netnsPlan(p *plan) {
	if !p.level.AtLeast(LevelNetns) {
		return
	}
	err := namespacesProbe()
	if err == nil {
		// The namespace contains TCP whatever Landlock's rules.
		p.refused = slices.DeleteFunc(p.refused, func(s string) bool { return strings.HasPrefix(s, "landlock tcp rules:") })
		return
	}
	p.level = LevelLandlock
	what := "user and network namespaces"
	if os.Geteuid() == 0 {
		what = "network namespace"
	}
	p.refused = append(p.refused, fmt.Sprintf("%s: %v (any loopback port, UDP and unix socket, and the outside network on allowed TCP ports, can be reached)", what, describeErrno(err)))
}

// route is a listener inside a run's network namespace and where the
// harness takes what arrives on it: Target, or, when Target is empty,
// the HTTP proxy.
type route struct {
	Listen   string
	Optional bool
	Target   string
}

// netPlan is a run's network: what is forwarded, and what the proxy lets
// through.
type netPlan struct {
	routes []route
	allow  map[string]bool
	proxy  string // the proxy's address inside, "" without one
}

// endpoints are the URLs in the agent's environment, arguments and extra.
func endpoints(env, args, urls []string) []*url.URL {
	var out []*url.URL
	scan := func(s string) {
		for _, scheme := range []string{"http://", "https://", "ws://", "wss://"} {
			for rest := s; ; {
				i := strings.Index(rest, scheme)
				if i < 0 {
					break
				}
				rest = rest[i:]
				end := strings.IndexAny(rest, " \t\n\"',;")
				if end < 0 {
					end = len(rest)
				}
				if u, err := url.Parse(rest[:end]); err == nil && u.Host != "" {
					out = append(out, u)
				}
				rest = rest[len(scheme):]
			}
		}
	}
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		scan(v)
	}
	for _, a := range args {
		scan(a)
	}
	for _, u := range urls {
		scan(u)
	}
	return out
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// network plans a run's network: each loopback endpoint is forwarded
// from the same address and port inside, every other host:port (of the
// endpoints and of Config.AllowHosts) is let through the HTTP proxy.
func (r *Run) network(env, args, urls []string) (netPlan, error) {
	p := netPlan{allow: map[string]bool{}}
	listening := map[string]bool{}
	forward := func(host string, port int) {
		target := net.JoinHostPort(host, strconv.Itoa(port))
		if host == "localhost" {
			target = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		}
		for _, l := range []route{
			{Listen: "127.0.0.1:" + strconv.Itoa(port), Target: target},
			{Listen: "[::1]:" + strconv.Itoa(port), Target: target, Optional: true},
		} {
			if !listening[l.Listen] {
				listening[l.Listen] = true
				p.routes = append(p.routes, l)
			}
		}
	}
	add := func(host string, port int) {
		if loopback(host) {
			forward(host, port)
			return
		}
		p.allow[net.JoinHostPort(strings.ToLower(host), strconv.Itoa(port))] = true
	}
	for _, u := range endpoints(env, args, urls) {
		add(u.Hostname(), urlPort(u.String()))
	}
	for _, hp := range r.Config.AllowHosts {
		host, port, err := net.SplitHostPort(hp)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n <= 0 || n > 65535 {
			return p, fmt.Errorf("sandbox: allowHosts: %q is not host:port", hp)
		}
		add(host, n)
	}
	if len(p.allow) > 0 {
		port := proxyPort
		for listening["127.0.0.1:"+strconv.Itoa(port)] {
			port++
		}
		p.proxy = "127.0.0.1:" + strconv.Itoa(port)
		p.routes = append(p.routes, route{Listen: p.proxy})
	}
	return p, nil
}

// proxyEnv points the agent's HTTP clients at the proxy, loopback
// excepted (the endpoints forwarded as they are).
func proxyEnv(env []string, proxy string) []string {
	vars := map[string]string{
		"HTTPS_PROXY": "http://" + proxy, "HTTP_PROXY": "http://" + proxy, "ALL_PROXY": "http://" + proxy,
		"NO_PROXY": "localhost,127.0.0.1,::1",
	}
	out := make([]string, 0, len(env)+2*len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[strings.ToUpper(k)]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range vars {
		out = append(out, k+"="+v, strings.ToLower(k)+"="+v)
	}
	slices.Sort(out[len(out)-2*len(vars):])
	return out
}

// netns readies cmd to start in the run's namespaces: it sets the clone
// flags, hands the helper its end of the socket the listeners come back
// on, fills s.NS and the record, and returns the bridge serving the
// listeners once the helper has opened them.
func (r *Run) netns(cmd *exec.Cmd, s *spec, info *Info, env []string, extra Extra) ([]string, *bridge, error) {
	np, err := r.network(env, cmd.Args, extra.URLs)
	if err != nil {
		return nil, nil, err
	}
	if np.proxy != "" {
		env = proxyEnv(env, np.proxy)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	own := os.NewFile(uintptr(fds[0]), "lux-bridge")
	c, err := net.FileConn(own)
	_ = own.Close()
	if err != nil {
		_ = syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	b := &bridge{run: r, allow: np.allow, routes: np.routes, conn: c.(*net.UnixConn), child: os.NewFile(uintptr(fds[1]), "lux-bridge-helper")}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	ns := &nsSpec{FD: 3 + len(cmd.ExtraFiles), Ambient: setNamespaces(cmd.SysProcAttr)}
	if ns.Ambient {
		ns.UID, ns.GID = os.Geteuid(), os.Getegid()
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, b.child)
	for _, rt := range np.routes {
		ns.Listen = append(ns.Listen, listenSpec{Addr: rt.Listen, Optional: rt.Optional})
	}
	ns.Mask = slices.Clone(maskedDirs)
	for _, d := range r.Protect {
		// A protected directory holding the system (a harness run from
		// /) is not masked: Landlock keeps it unreadable all the same.
		if d != "" && filepath.IsAbs(d) && !slices.ContainsFunc(systemRO, func(s string) bool { return within(s, d) }) {
			ns.Mask = append(ns.Mask, d)
		}
	}
	ns.Keep = []string{s.Path, cmd.Dir, r.Workspace, r.Scratch}
	for _, ru := range s.Rules {
		ns.Keep = append(ns.Keep, ru.Path)
	}
	s.NS = ns
	// The namespace is the network boundary: inside it, the agent may
	// connect to any port (its own test servers, the forwarded ones).
	s.Net, s.Ports, info.ConnectPorts = 0, nil, nil
	info.Network = "an empty network namespace"
	if ns.Ambient {
		info.Network += " in a user namespace"
	}
	info.Network += "; " + strings.Join(maskedDirs, ", ") + " and the protected directories masked by a private mount namespace"
	if ns.Proc = !ns.Ambient; ns.Proc {
		info.Network += "; /proc lists only the run's own processes (hidepid=ptraceable)"
	} else {
		info.Refused = append(info.Refused, "private /proc: mounting one unprivileged needs a pid namespace (not used: its init would stand between the harness and the agent's exit status), so /proc lists the harness's and other runs' processes with their command lines; Landlock refuses ptrace and their memory")
	}
	for _, rt := range np.routes {
		if !rt.Optional && rt.Target != "" {
			info.Reachable = append(info.Reachable, rt.Listen+" (forwarded to "+rt.Target+")")
		}
	}
	for hp := range np.allow {
		info.Reachable = append(info.Reachable, hp+" (through the proxy at "+np.proxy+")")
	}
	slices.Sort(info.Reachable)
	b.meter.counted = func(t Tokens) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.info != nil {
			r.info.Metered = &t
		}
	}
	go b.serve()
	return env, b, nil
}
