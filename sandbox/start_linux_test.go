package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestHarnessStaysUnconfined: while a confined agent runs, no thread of
// the harness is confined (the one that started it has ended), and
// every goroutine of the harness still writes where the agent may not.
func TestHarnessStaysUnconfined(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	peer, stop := startWaiting(t, w.run(Config{}))
	defer stop()
	if got := hostile(t, w.run(Config{}), "write", filepath.Join(w.root, "forged")); !strings.HasPrefix(got, "DENIED") {
		t.Fatalf("the agent wrote the runs root: %s", got)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			errs <- os.WriteFile(filepath.Join(w.root, "harness-"+strconv.Itoa(i)), []byte("ok"), 0o644)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a harness goroutine was confined: %v", err)
		}
	}
	// The thread that started the agent ended before the agent ran.
	if n := threadsWithNoNewPrivs(t); n != 0 {
		t.Errorf("%d threads of the harness have no_new_privs while agent %d runs, want 0", n, peer)
	}
}

// TestStartLeavesNoTrace: the agent is not traced once it runs, no
// SIGTRAP waits for it, and the limits are its own.
func TestStartLeavesNoTrace(t *testing.T) {
	w := newWorld(t)
	for _, level := range []Level{LevelLimits, LevelLandlock} {
		if level == LevelLandlock {
			requireLandlock(t)
		}
		r := w.run(Config{Level: level, Limits: Limits{CPUSeconds: 77, FileBytes: 1 << 20}})
		if got := hostile(t, r, "traced"); !strings.HasPrefix(got, "DENIED") {
			t.Errorf("%s: the agent is traced or has a signal pending: %s", level, got)
		}
		if got := hostile(t, r, "rlimit", strconv.Itoa(syscall.RLIMIT_CPU)); got != "77 82 ALLOWED" {
			t.Errorf("%s: RLIMIT_CPU of the agent = %q, want 77 82", level, got)
		}
		if got := hostile(t, r, "rlimit", strconv.Itoa(syscall.RLIMIT_FSIZE)); got != "1048576 1048576 ALLOWED" {
			t.Errorf("%s: RLIMIT_FSIZE of the agent = %q", level, got)
		}
	}
	var own syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CPU, &own); err != nil || own.Cur == 77 {
		t.Errorf("the harness's own RLIMIT_CPU changed: %+v %v", own, err)
	}
}

// TestAgentOutlivesOtherStarts: the agent is not ended when the thread
// that forked it ends (no parent-death signal), nor by other starts.
func TestAgentOutlivesOtherStarts(t *testing.T) {
	w := newWorld(t)
	pid, stop := startWaiting(t, w.run(Config{Level: LevelLimits}))
	defer stop()
	for range 5 {
		if got := hostile(t, w.run(Config{Level: LevelLimits}), "read", "/etc/passwd"); got != "ALLOWED" {
			t.Fatal(got)
		}
	}
	state, err := procState(pid)
	if err != nil || state == "Z" {
		t.Errorf("the first agent ended: state %q, %v", state, err)
	}
}

// TestStartRefusedWithoutHandle: a wrapped command started with
// cmd.Start instead of its Handle's Start fails rather than run
// unconfined.
func TestStartRefusedWithoutHandle(t *testing.T) {
	w := newWorld(t)
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{}
	h, err := w.run(Config{Level: LevelLimits}).Wrap(cmd, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if err := cmd.Start(); !errors.Is(err, errUseStart) {
		t.Fatalf("cmd.Start = %v, want %v", err, errUseStart)
	}
}

// TestHelperPathStillConfines: the helper (used where the thread start
// cannot set the limits) denies the same writes.
func TestHelperPathStillConfines(t *testing.T) {
	requireLandlock(t)
	forceHelper.Store(true)
	defer forceHelper.Store(false)
	w := newWorld(t)
	if got := hostile(t, w.run(Config{}), "write", filepath.Join(w.other, "run.json")); !strings.HasPrefix(got, "DENIED") {
		t.Errorf("through the helper: %s", got)
	}
	if got := hostile(t, w.run(Config{}), "rlimit", strconv.Itoa(syscall.RLIMIT_FSIZE)); got != fmt.Sprintf("%d %d ALLOWED", DefaultLimits.FileBytes, DefaultLimits.FileBytes) {
		t.Errorf("through the helper: RLIMIT_FSIZE = %q", got)
	}
}

// startWaiting starts the "wait" attack in r and returns its pid once it
// runs, and a function that ends it.
func startWaiting(t *testing.T, r *Run) (int, func()) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "wait")
	cmd.Dir = r.Workspace
	cmd.Env = []string{envAttack + "=1", "PATH=/usr/bin:/bin"}
	h, err := r.Wrap(cmd, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(cmd); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); h.Release() }
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "READY\n" {
		stop()
		t.Fatalf("the agent did not start: %q %v", line, err)
	}
	return cmd.Process.Pid, stop
}

// threadsWithNoNewPrivs counts the threads of this process with
// no_new_privs but the spare waiting for the next start (in no Landlock
// domain: "signal any thread of the harness" in TestHostileAgentsAreDenied
// shows an agent cannot signal it), once the spare being made is.
func threadsWithNoNewPrivs(t *testing.T) int {
	t.Helper()
	spares.making.Wait()
	spare := ""
	spares.mu.Lock()
	if spares.ready != nil {
		spare = strconv.Itoa(spares.ready.tid)
	}
	spares.mu.Unlock()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		if task.Name() == spare {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err == nil && strings.Contains(string(b), "\nNoNewPrivs:\t1\n") {
			n++
		}
	}
	return n
}

func procState(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return "", errors.New("malformed stat")
	}
	return s[i+2 : i+3], nil
}

// TestUnreadableExecutable: an agent whose executable the harness may
// run but not read (the kernel makes its process non-dumpable) still gets
// its limits: prlimit asks for matching ids, not ptrace access. Run it as
// an unprivileged user too.
func TestUnreadableExecutable(t *testing.T) {
	w := newWorld(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(w.scratch, "agent")
	if err := os.WriteFile(bin, data, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o111); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "rlimit", strconv.Itoa(syscall.RLIMIT_FSIZE))
	cmd.Env = []string{envAttack + "=1"}
	h, err := w.run(Config{Level: LevelLimits, Limits: Limits{FileBytes: 4096}}).Wrap(cmd, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	out, err := combinedOutput(h, cmd)
	if string(out) != "4096 4096 ALLOWED\n" {
		t.Errorf("output %q, %v", out, err)
	}
}

// TestReusedCgroupCountsAfresh: a run's cgroup is kept for the next run
// once emptied; the forks refused in the first run are not the second's.
func TestReusedCgroupCountsAfresh(t *testing.T) {
	w := newWorld(t)
	lim := Limits{Processes: 16}
	run := func(args ...string) (string, string, Info) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, args...)
		cmd.Env = []string{envAttack + "=1"}
		h, err := w.run(Config{Level: LevelLimits, Limits: lim}).Wrap(cmd, Extra{})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := combinedOutput(h, cmd)
		h.Release()
		return string(out), h.LimitHit(""), h.Info()
	}
	out, hit, in := run("fork", "40")
	if in.ProcessLimit != "pids-cgroup" {
		t.Skipf("no pids cgroup here: %v", in.Refused)
	}
	if !strings.HasPrefix(out, "DENIED") || !strings.Contains(hit, "process limit") {
		t.Fatalf("fork bomb: %q, limit hit %q", out, hit)
	}
	dir := pidsRoot.free[len(pidsRoot.free)-1].dir
	out, hit, _ = run("read", "/etc/passwd")
	if out != "ALLOWED\n" || hit != "" {
		t.Errorf("the next run: %q, limit hit %q, want none", out, hit)
	}
	if got := pidsRoot.free[len(pidsRoot.free)-1].dir; got != dir {
		t.Errorf("the next run used %s, not the emptied %s", got, dir)
	}
}

// TestRulesSkipWhatSystemTreesGrant: a command and PATH directories
// beneath the system's trees add no rule of their own (each rule costs
// an open per start); a command elsewhere is granted, with its directory.
func TestRulesSkipWhatSystemTreesGrant(t *testing.T) {
	w := newWorld(t)
	r := w.run(Config{})
	perRun := func(cmd *exec.Cmd) []string {
		var out []string
		for _, ru := range r.rules(cmd, []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, Extra{}) {
			if !ru.System && ru.Path != w.workspace && ru.Path != w.scratch {
				out = append(out, ru.Path)
			}
		}
		return out
	}
	if got := perRun(exec.Command("/bin/sh")); len(got) != 0 {
		t.Errorf("rules for /bin/sh beyond the system's: %v", got)
	}
	agent := filepath.Join(w.cwd, "agent")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Protect = nil
	got := perRun(exec.Command(agent))
	for _, want := range []string{agent, w.cwd} {
		if !slices.Contains(got, want) {
			t.Errorf("rules for %s = %v, want %s among them", agent, got, want)
		}
	}
}

// TestHelperNeeded: the start on a confined thread traces its agent, so
// a traced harness or a Yama that forbids tracing uses the helper.
func TestHelperNeeded(t *testing.T) {
	for _, tt := range []struct {
		status, scope string
		euid          int
		want          bool
	}{
		{"Name:\tlux\nTracerPid:\t0\n", "", 1000, false},
		{"Name:\tlux\nTracerPid:\t0\n", "1", 1000, false},
		{"Name:\tlux\nTracerPid:\t4242\n", "", 1000, true},
		{"TracerPid:\t0\n", "2", 1000, true},
		{"TracerPid:\t0\n", "2", 0, false},
		{"TracerPid:\t0\n", "3", 0, true},
	} {
		if got := helperNeeded(tt.status, tt.scope, tt.euid); got != tt.want {
			t.Errorf("helperNeeded(%q, %q, %d) = %v, want %v", tt.status, tt.scope, tt.euid, got, tt.want)
		}
	}
}

// TestBoundingSetIsTheKeptOne: an agent started as root at level
// landlock, by either start, has exactly keptCaps in its bounding set.
func TestBoundingSetIsTheKeptOne(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("the bounding set is emptied for root only")
	}
	var want uint64
	for c := range keptCaps {
		want |= 1 << c
	}
	w := newWorld(t)
	for _, helper := range []bool{false, true} {
		forceHelper.Store(helper)
		got := hostile(t, w.run(Config{}), "status", "CapBnd")
		forceHelper.Store(false)
		if wantLine := fmt.Sprintf("%016x ALLOWED", want); got != wantLine {
			t.Errorf("helper %v: the agent's CapBnd = %q, want %q", helper, got, wantLine)
		}
	}
}

// TestSparesMatchTheirStart: starts that alternate between levels get
// the confinement of their own level, whatever spare thread was made for
// the start before: no filter at level limits, one at level landlock.
func TestSparesMatchTheirStart(t *testing.T) {
	requireLandlock(t)
	w := newWorld(t)
	for i, level := range []Level{LevelLandlock, LevelLimits, LevelLimits, LevelLandlock, LevelLandlock, LevelLimits} {
		want := map[Level]string{LevelLimits: "0 ALLOWED", LevelLandlock: "1 ALLOWED"}[level]
		if got := hostile(t, w.run(Config{Level: level}), "status", "Seccomp_filters"); got != want {
			t.Errorf("start %d, level %s: the agent's Seccomp_filters = %q, want %q", i, level, got, want)
		}
	}
}
