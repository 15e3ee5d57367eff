package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// netAttacks are the hostile agent's network attacks.
var netAttacks = map[string]func(a []string) error{
	// udp sends a datagram to a loopback port and waits for the echo.
	"udp": func(a []string) error {
		c, err := net.Dial("udp", "127.0.0.1:"+a[0])
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		// The echo comes from the test's own listener: a deadline for a
		// loaded machine, never reached where the datagram is refused.
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil {
			return err
		}
		if string(buf[:n]) != "ping" {
			return fmt.Errorf("got %q", buf[:n])
		}
		return nil
	},
	// cmdline reads a process's command line from /proc.
	"cmdline": func(a []string) error {
		b, err := os.ReadFile("/proc/" + a[0] + "/cmdline")
		if err == nil && len(b) == 0 {
			return errors.New("empty")
		}
		return err
	},
	// unix connects to a unix socket by its path.
	"unix": func(a []string) error {
		c, err := net.Dial("unix", a[0])
		if err != nil {
			return err
		}
		return c.Close()
	},
	// dns resolves a name.
	"dns": func(a []string) error {
		_, err := net.LookupHost(a[0])
		return err
	},
	// dial connects to host:port.
	"dial": func(a []string) error {
		c, err := net.DialTimeout("tcp", a[0], time.Minute)
		if err != nil {
			return err
		}
		return c.Close()
	},
	// get fetches http://a[0] with Go's default client, which takes its
	// proxy from the environment, and wants the body a[1]. The scheme is
	// added here: a URL in the agent's arguments would be allowed.
	"get": func(a []string) error {
		resp, err := http.Get("http://" + a[0])
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(b) != a[1] {
			return fmt.Errorf("%s: %q", resp.Status, b)
		}
		return nil
	},
}

func requireNetns(t *testing.T) {
	t.Helper()
	if l, refused, _ := Available(); l != LevelNetns {
		t.Skipf("no landlock+netns here: %v", refused)
	}
}

// serveTCP accepts on a loopback port and answers each connection with
// body as an HTTP response.
func serveTCP(t *testing.T, body string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// TestNetnsHostileAgentsAreDenied: inside landlock+netns, a hostile agent
// reaches no loopback service of the host (TCP, UDP, a unix socket by its
// path, even one outside the masked directories, which the seccomp
// filter denies), resolves no name and reaches no outside host; each
// attack succeeds at level limits (no namespace, Landlock or filter), so
// the test can fail. The agent still reaches its model endpoint,
// forwarded.
func TestNetnsHostileAgentsAreDenied(t *testing.T) {
	requireNetns(t)
	w := newWorld(t)
	model := serveTCP(t, "model")
	other := serveTCP(t, "other")
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = udp.WriteTo(buf[:n], from)
		}
	}()
	// A socket where services keep theirs (/tmp, as a desktop's X11 or a
	// tool's agent socket), and one in the harness's own directories.
	sockDir, err := os.MkdirTemp("/tmp", "lux-netns-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	var socks []string
	// And one in the workspace, which no mount hides from the agent.
	for _, p := range []string{filepath.Join(sockDir, "s"), filepath.Join(w.home, "agent.sock"), filepath.Join(w.workspace, "tool.sock")} {
		ul, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		defer ul.Close()
		go func() {
			for {
				c, err := ul.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		socks = append(socks, p)
	}
	modelURL := "http://127.0.0.1:" + strconv.Itoa(model)
	withModel := func(c Config) *Run {
		c.ConnectPorts = []int{model, other}
		return w.run(c)
	}
	run := func(r *Run, args ...string) string {
		return hostileEnv(t, r, []string{"OPENAI_BASE_URL=" + modelURL}, args...)
	}
	tests := []struct {
		name string
		args []string
		// control: the attack succeeds at level limits, outside the
		// namespace, Landlock and the seccomp filter.
		control bool
	}{
		{"UDP to a loopback port", []string{"udp", strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)}, true},
		{"TCP to a loopback service not allowed", []string{"dial", "127.0.0.1:" + strconv.Itoa(other)}, true},
		{"a unix socket in /tmp", []string{"unix", socks[0]}, true},
		{"a unix socket in $HOME", []string{"unix", socks[1]}, true},
		{"a unix socket in the workspace", []string{"unix", socks[2]}, true},
		{"DNS", []string{"dns", "example.com"}, false},
		{"an outside host", []string{"dial", "1.1.1.1:443"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := withModel(Config{Level: LevelNetns})
			if got := run(r, tt.args...); !strings.HasPrefix(got, "DENIED") {
				t.Errorf("sandboxed: %s", got)
			}
			if in := r.Info(); in == nil || in.Level != LevelNetns || in.Network == "" {
				t.Errorf("info = %+v, want level %s and its network", in, LevelNetns)
			}
			if tt.control {
				if got := run(withModel(Config{Level: LevelLimits}), tt.args...); got != "ALLOWED" {
					t.Errorf("at level limits the attack fails too, so the test proves nothing: %s", got)
				}
			}
		})
	}
	t.Run("the model endpoint", func(t *testing.T) {
		r := withModel(Config{Level: LevelNetns})
		if got := run(r, "get", "127.0.0.1:"+strconv.Itoa(model)+"/v1/models", "model"); got != "ALLOWED" {
			t.Errorf("the forwarded endpoint: %s", got)
		}
		want := "127.0.0.1:" + strconv.Itoa(model) + " (forwarded to 127.0.0.1:" + strconv.Itoa(model) + ")"
		if in := r.Info(); in == nil || len(in.Reachable) != 1 || in.Reachable[0] != want {
			t.Errorf("info = %+v, want reachable %q", in, want)
		}
	})
}

// TestNetnsProxyAllowsOnlyAllowedHosts: an allowed host is reached
// through the proxy, any other is refused and the record says so.
func TestNetnsProxyAllowsOnlyAllowedHosts(t *testing.T) {
	requireNetns(t)
	w := newWorld(t)
	// A server on an address of this machine that is not loopback: the
	// agent cannot reach it inside its namespace but through the proxy.
	ip := outsideIP(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"usage":{"input_tokens":9,"output_tokens":4}}`)
	}))
	api := ln.Addr().String()
	r := w.run(Config{Level: LevelNetns, AllowHosts: []string{api}})
	if got := hostileEnv(t, r, nil, "dial", api); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("the allowed host directly, not through the proxy: %s", got)
	}
	if got := hostileEnv(t, r, nil, "get", api+"/", `{"usage":{"input_tokens":9,"output_tokens":4}}`); got != "ALLOWED" {
		t.Errorf("the allowed host through the proxy: %s", got)
	}
	if in := r.Info(); in == nil || in.Metered == nil || *in.Metered != (Tokens{Input: 9, Output: 4, Responses: 1}) {
		t.Errorf("the response through the proxy is not metered: %+v", in)
	}
	r = w.run(Config{Level: LevelNetns, AllowHosts: []string{api}})
	if got := hostileEnv(t, r, nil, "get", "denied.example/", "x"); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("a host not allowed: %s", got)
	}
	in := r.Info()
	if in == nil || len(in.Denied) != 1 || !strings.Contains(in.Denied[0], "denied.example:80") {
		t.Errorf("info = %+v, want the refused host in Denied", in)
	}
}

// outsideIP is an IPv4 address of this machine that is not loopback.
func outsideIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("no address but loopback here")
	return ""
}

// hostileEnv is hostile with more environment.
func hostileEnv(t *testing.T, r *Run, env []string, args ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = r.Workspace
	cmd.Env = append([]string{envAttack + "=1", "PATH=/usr/bin:/bin"}, env...)
	h, err := r.Wrap(cmd, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	out, err := combinedOutput(h, cmd)
	if err != nil && len(out) == 0 {
		t.Fatalf("%v: %v", args, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// BenchmarkStartNetns measures what landlock+netns adds to a start:
// /bin/true through the helper at level landlock, and at landlock+netns
// without and with a forwarded endpoint (the namespaces, bringing lo up,
// the mounts, the listeners handed to the harness). No cgroup is made.
func BenchmarkStartNetns(b *testing.B) {
	dir := b.TempDir()
	ws, scratch := filepath.Join(dir, "ws"), filepath.Join(dir, "scratch")
	for _, d := range []string{ws, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		level Level
		env   []string
	}{
		{"landlock", LevelLandlock, nil},
		{"landlock+netns", LevelNetns, nil},
		{"landlock+netns-endpoint", LevelNetns, []string{"OPENAI_BASE_URL=http://127.0.0.1:9"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := &Run{Config: Config{Level: tc.level, Limits: Limits{Processes: -1, MemoryBytes: -1}}, Workspace: ws, Scratch: scratch}
			if l := r.plan().level; l != tc.level {
				b.Skipf("level %s is not available: %v", tc.level, r.plan().refused)
			}
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, tc.env...)
				h, err := r.Wrap(cmd, Extra{})
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Start(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				h.Release()
			}
		})
	}
}

// TestSelfTestNetns: lux doctor's self-test starts a shell at
// landlock+netns and checks it sees no interface but lo.
func TestSelfTestNetns(t *testing.T) {
	requireNetns(t)
	in, err := SelfTest(Config{Level: LevelNetns})
	if err != nil {
		t.Fatal(err)
	}
	if in.Level != LevelNetns || in.Network == "" {
		t.Errorf("info = %+v", in)
	}
}

// TestNetworkPlan: loopback endpoints are forwarded from the same
// address, other hosts go through the proxy, which the environment names.
func TestNetworkPlan(t *testing.T) {
	tests := []struct {
		name        string
		env, urls   []string
		allowHosts  []string
		wantRoutes  []route
		wantAllowed []string
		wantProxy   string
	}{
		{
			name:       "a local model server",
			env:        []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:8080"},
			wantRoutes: []route{{Listen: "127.0.0.1:8080", Target: "127.0.0.1:8080"}, {Listen: "[::1]:8080", Target: "127.0.0.1:8080", Optional: true}},
		},
		{
			name:        "the provider's API",
			urls:        []string{"https://api.anthropic.com"},
			wantRoutes:  []route{{Listen: "127.0.0.1:3128"}},
			wantAllowed: []string{"api.anthropic.com:443"},
			wantProxy:   "127.0.0.1:3128",
		},
		{
			name:        "a forwarded port takes the proxy's",
			env:         []string{"BASE=http://localhost:3128/v1"},
			allowHosts:  []string{"Example.COM:8443"},
			wantRoutes:  []route{{Listen: "127.0.0.1:3128", Target: "127.0.0.1:3128"}, {Listen: "[::1]:3128", Target: "127.0.0.1:3128", Optional: true}, {Listen: "127.0.0.1:3129"}},
			wantAllowed: []string{"example.com:8443"},
			wantProxy:   "127.0.0.1:3129",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Run{Config: Config{AllowHosts: tt.allowHosts}}
			p, err := r.network(tt.env, nil, tt.urls)
			if err != nil {
				t.Fatal(err)
			}
			var allowed []string
			for hp := range p.allow {
				allowed = append(allowed, hp)
			}
			if diff := cmp.Diff(tt.wantRoutes, p.routes); diff != "" {
				t.Errorf("routes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAllowed, allowed); diff != "" {
				t.Errorf("allowed (-want +got):\n%s", diff)
			}
			if p.proxy != tt.wantProxy {
				t.Errorf("proxy = %q, want %q", p.proxy, tt.wantProxy)
			}
		})
	}
	if _, err := (&Run{Config: Config{AllowHosts: []string{"example.com"}}}).network(nil, nil, nil); err == nil || !strings.Contains(err.Error(), "allowHosts") {
		t.Errorf("a host without a port: %v", err)
	}
	env := proxyEnv([]string{"https_proxy=http://corp:8080", "PATH=/bin"}, "127.0.0.1:3128")
	for _, want := range []string{"HTTPS_PROXY=http://127.0.0.1:3128", "https_proxy=http://127.0.0.1:3128", "NO_PROXY=localhost,127.0.0.1,::1", "PATH=/bin"} {
		if !slices.Contains(env, want) {
			t.Errorf("proxyEnv: no %s in %v", want, env)
		}
	}
	if slices.Contains(env, "https_proxy=http://corp:8080") {
		t.Errorf("proxyEnv kept the user's proxy: %v", env)
	}
}

// TestNetnsHidesOtherProcesses: as root, the run's /proc lists none of
// the harness's processes; unprivileged, the record says it does.
func TestNetnsHidesOtherProcesses(t *testing.T) {
	requireNetns(t)
	w := newWorld(t)
	harness := strconv.Itoa(os.Getpid())
	r := w.run(Config{Level: LevelNetns})
	got := hostile(t, r, "cmdline", harness)
	if os.Geteuid() != 0 {
		if in := r.Info(); !strings.Contains(strings.Join(in.Refused, ";"), "private /proc") {
			t.Errorf("unprivileged, the record does not say /proc is shared: %+v", in)
		}
		return
	}
	if !strings.HasPrefix(got, "DENIED") {
		t.Errorf("sandboxed: %s", got)
	}
	if got := hostile(t, r, "cmdline", "self"); got != "ALLOWED" {
		t.Errorf("the agent's own process: %s", got)
	}
	if got := hostile(t, w.run(Config{Level: LevelLandlock}), "cmdline", harness); got != "ALLOWED" {
		t.Errorf("at level landlock the attack fails too, so the test proves nothing: %s", got)
	}
}

// TestNetnsMasksNoSystemDirectory: a harness whose protected directories
// hold the system (run from /) masks none of them.
func TestNetnsMasksNoSystemDirectory(t *testing.T) {
	w := newWorld(t)
	r := &Run{Config: Config{Level: LevelNetns}, Workspace: w.workspace, Scratch: w.scratch, Protect: []string{"/", "/usr", w.home}}
	cmd := exec.Command("/bin/true")
	s := &spec{Path: "/bin/true"}
	_, b, err := r.netns(cmd, s, &Info{}, nil, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	want := append(slices.Clone(maskedDirs), w.home)
	if diff := cmp.Diff(want, s.NS.Mask); diff != "" {
		t.Errorf("masked (-want +got):\n%s", diff)
	}
}

// TestNetnsPeersCannotReachEachOther: two runs at landlock+netns at once:
// one cannot read or write the other's workspace, signal it, ptrace it or
// open its memory, nor (as root) see it in /proc.
func TestNetnsPeersCannotReachEachOther(t *testing.T) {
	requireNetns(t)
	a, b := newWorld(t), newWorld(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peer := exec.Command(self, "wait")
	peer.Dir = a.workspace
	peer.Env = []string{envAttack + "=1", "PATH=/usr/bin:/bin"}
	h, err := a.run(Config{Level: LevelNetns}).Wrap(peer, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	out, err := peer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(peer); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = peer.Process.Kill(); _ = peer.Wait() }()
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "READY\n" {
		t.Fatalf("the peer did not start: %q %v", line, err)
	}
	answer := filepath.Join(a.workspace, "answer.txt")
	if err := os.WriteFile(answer, []byte("42"), 0o644); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(peer.Process.Pid)
	for _, args := range [][]string{
		{"write", answer}, {"read", answer}, {"kill", pid}, {"ptrace", pid}, {"mem", pid}, {"cmdline", pid},
	} {
		if args[0] == "cmdline" && os.Geteuid() != 0 {
			continue // unprivileged, /proc is shared (the record says so)
		}
		if got := hostile(t, b.run(Config{Level: LevelNetns}), args...); !strings.HasPrefix(got, "DENIED") {
			t.Errorf("%v: %s", args, got)
		}
	}
}

// TestRequireNetnsRaisesTheDefault: requiring landlock+netns without
// choosing a level runs at it, rather than refusing the default below it.
func TestRequireNetnsRaisesTheDefault(t *testing.T) {
	requireNetns(t)
	p := planFor(Config{Require: LevelNetns})
	if p.err != nil || p.level != LevelNetns {
		t.Errorf("plan = %s, %v; want %s", p.level, p.err, LevelNetns)
	}
}

// TestNetnsNeedsNoTCPRules: on a kernel without Landlock's TCP rules
// (ABI 3), landlock+netns still contains TCP, and the record does not
// say any port can be reached.
func TestNetnsNeedsNoTCPRules(t *testing.T) {
	requireNetns(t)
	ForceLandlockABI(3)
	defer ForceLandlockABI(-1)
	p := planFor(Config{Level: LevelNetns})
	if p.level != LevelNetns || slices.ContainsFunc(p.refused, func(s string) bool { return strings.Contains(s, "tcp rules") }) {
		t.Errorf("plan = %s, refused %q", p.level, p.refused)
	}
	if p := planFor(Config{Level: LevelLandlock}); !slices.ContainsFunc(p.refused, func(s string) bool { return strings.Contains(s, "tcp rules") }) {
		t.Errorf("at landlock the missing TCP rules are not said: %q", p.refused)
	}
}
