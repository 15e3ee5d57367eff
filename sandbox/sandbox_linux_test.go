package sandbox

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// world is a runs root with a live run (the agent's) and another run's
// record, a fake home with a secret, and a harness working directory.
type world struct {
	root, workspace, scratch, other, home, cwd string
}

func newWorld(t *testing.T) world {
	t.Helper()
	base := t.TempDir()
	w := world{
		root: filepath.Join(base, "runs"),
		home: filepath.Join(base, "home"),
		cwd:  filepath.Join(base, "project"),
	}
	live := filepath.Join(w.root, ".live", "r1")
	w.workspace, w.scratch = filepath.Join(live, "workspace"), filepath.Join(live, "scratch")
	w.other = filepath.Join(w.root, "case", "run-1")
	for _, d := range []string{w.workspace, w.scratch, w.other, filepath.Join(w.home, ".ssh"), w.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(w.other, "run.json"), filepath.Join(w.home, ".ssh", "id_ed25519")} {
		if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) run(c Config) *Run {
	return &Run{Config: c, Workspace: w.workspace, Scratch: w.scratch, Protect: []string{w.root, w.home, w.cwd, os.TempDir()}}
}

// hostile runs the test binary as a hostile agent in r's sandbox and
// returns its first output line.
func hostile(t *testing.T, r *Run, args ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = r.Workspace
	cmd.Env = []string{envAttack + "=1", "PATH=/usr/bin:/bin"}
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

func requireLandlock(t *testing.T) {
	t.Helper()
	if l, refused, _ := Available(); l != LevelLandlock {
		t.Skipf("no Landlock here: %v", refused)
	}
}

// TestHostileAgentsAreDenied runs one attack of each class inside the
// default sandbox, and the same attack with the sandbox off, which must
// succeed: a test whose attack cannot succeed proves nothing.
func TestHostileAgentsAreDenied(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	abs, err := net.Listen("unix", "@lux-sandbox-test-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer abs.Close()
	go func() {
		for {
			c, err := abs.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	harness := strconv.Itoa(os.Getpid())
	tests := []struct {
		name string
		args []string
	}{
		{"write the runs root", []string{"write", filepath.Join(w.root, "forged.json")}},
		{"rewrite another run's record", []string{"write", filepath.Join(w.other, "run.json")}},
		{"read another run's record", []string{"read", filepath.Join(w.other, "run.json")}},
		{"list the runs root", []string{"list", w.root}},
		{"write $HOME", []string{"write", filepath.Join(w.home, "planted")}},
		{"read a secret in $HOME", []string{"read", filepath.Join(w.home, ".ssh", "id_ed25519")}},
		{"write /tmp", []string{"write", filepath.Join(os.TempDir(), "lux-sandbox-planted-"+harness)}},
		{"write the harness's working directory", []string{"write", filepath.Join(w.cwd, "planted")}},
		{"read the harness's environment", []string{"environ", harness}},
		{"open the harness's memory", []string{"mem", harness}},
		{"ptrace the harness", []string{"ptrace", harness}},
		{"signal the harness", []string{"kill", harness}},
		{"signal any thread of the harness", []string{"tgkill", harness}},
		{"connect to a loopback port not allowed", []string{"connect", port}},
		{"connect to an abstract unix socket", []string{"abstract", "lux-sandbox-test-" + harness}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hostile(t, w.run(Config{}), tt.args...); !strings.HasPrefix(got, "DENIED") {
				t.Errorf("sandboxed: %s", got)
			}
			if os.Geteuid() != 0 {
				return // the control below needs root's access to a non-dumpable harness
			}
			if got := hostile(t, w.run(Config{Level: LevelNone}), tt.args...); !strings.HasSuffix(got, "ALLOWED") {
				t.Errorf("without the sandbox the attack fails too, so the test proves nothing: %s", got)
			}
		})
	}
	_ = os.Remove(filepath.Join(os.TempDir(), "lux-sandbox-planted-"+harness))
}

// TestAgentWorksInItsWorkspace: the agent writes its workspace and
// scratch, and reaches the ports it was given.
func TestAgentWorksInItsWorkspace(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	r := w.run(Config{ConnectPorts: []int{port}})
	for _, args := range [][]string{
		{"write", filepath.Join(w.workspace, "out.txt")},
		{"write", filepath.Join(w.scratch, "notes.txt")},
		{"read", "/etc/passwd"},
		{"connect", strconv.Itoa(port)},
	} {
		if got := hostile(t, r, args...); got != "ALLOWED" {
			t.Errorf("%v: %s", args, got)
		}
	}
	if in := r.Info(); in == nil || in.Level != LevelLandlock {
		t.Errorf("info = %+v, want level landlock", in)
	}
}

// TestLimitsStopHogs: a fork bomb, a memory hog and a huge file each meet
// their limit inside the sandbox, and the handle names it.
func TestLimitsStopHogs(t *testing.T) {
	w := newWorld(t)
	lim := Limits{Processes: 32, MemoryBytes: 256 << 20, FileBytes: 8 << 20}
	tests := []struct {
		name string
		args []string
	}{
		{"fork bomb", []string{"fork", "100"}},
		{"huge file", []string{"bigfile", filepath.Join(w.workspace, "big"), "16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hostile(t, w.run(Config{Level: LevelLimits, Limits: lim}), tt.args...); !strings.HasPrefix(got, "DENIED") {
				t.Errorf("sandboxed: %s", got)
			}
			if got := hostile(t, w.run(Config{Level: LevelNone}), tt.args...); !strings.HasSuffix(got, "ALLOWED") {
				t.Errorf("without the sandbox: %s", got)
			}
		})
	}
}

// TestPeersCannotReachEachOther: two runs at once (-j 2), each in its own
// sandbox: one cannot write or read the other's workspace, signal it,
// ptrace it or open its memory.
func TestPeersCannotReachEachOther(t *testing.T) {
	requireLandlock(t)
	a, b := newWorld(t), newWorld(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peer := exec.Command(self, "wait")
	peer.Dir = a.workspace
	peer.Env = []string{envAttack + "=1", "PATH=/usr/bin:/bin"}
	h, err := a.run(Config{}).Wrap(peer, Extra{})
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
	if err := os.WriteFile(filepath.Join(a.workspace, "answer.txt"), []byte("42"), 0o644); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(peer.Process.Pid)
	for _, args := range [][]string{
		{"write", filepath.Join(a.workspace, "answer.txt")},
		{"read", filepath.Join(a.workspace, "answer.txt")},
		{"kill", pid},
		{"tgkill", pid},
		{"ptrace", pid},
		{"mem", pid},
	} {
		if got := hostile(t, b.run(Config{}), args...); !strings.HasPrefix(got, "DENIED") {
			t.Errorf("%v: %s", args, got)
		}
		if os.Geteuid() != 0 {
			continue
		}
		if got := hostile(t, b.run(Config{Level: LevelNone}), args...); !strings.HasSuffix(got, "ALLOWED") {
			t.Errorf("%v without the sandbox fails too, so the test proves nothing: %s", args, got)
		}
	}
}

// TestMemoryHogIsStopped: a process that touches more memory than the
// limit is refused it (RLIMIT_DATA) or ended by the OOM killer of the
// run's memory cgroup, which the handle names.
func TestMemoryHogIsStopped(t *testing.T) {
	w := newWorld(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "alloc", "512")
	cmd.Env = []string{envAttack + "=1"}
	r := w.run(Config{Level: LevelLimits, Limits: Limits{MemoryBytes: 128 << 20}})
	h, err := r.Wrap(cmd, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := h.Start(cmd); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	out := buf.Bytes()
	signal := ""
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal = ws.Signal().String()
	}
	hit := h.LimitHit(signal)
	h.Release()
	t.Logf("memory limit by %s: %s", h.Info().MemoryLimit, hit)
	switch h.Info().MemoryLimit {
	case "memory-cgroup":
		if !strings.Contains(hit, "memory limit (134217728 bytes, memory cgroup)") {
			t.Errorf("LimitHit = %q (output %q, signal %q)", hit, out, signal)
		}
	default:
		if !strings.HasPrefix(string(out), "DENIED") {
			t.Errorf("output %q", out)
		}
	}
	cmd = exec.Command(self, "alloc", "512")
	cmd.Env = []string{envAttack + "=1"}
	if out, err := cmd.Output(); err != nil || string(out) != "ALLOWED\n" {
		t.Errorf("without the sandbox: %q %v", out, err)
	}
}

// combinedOutput starts cmd through h and returns its output, as
// exec.Cmd.CombinedOutput does.
func combinedOutput(h *Handle, cmd *exec.Cmd) ([]byte, error) {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := h.Start(cmd); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return buf.Bytes(), err
}
