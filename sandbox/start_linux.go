package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// startConfined starts cmd confined as s says, without a helper process:
// the confinement is applied to one OS thread of this process, which
// then forks the child, so the child inherits it from its first
// instruction and nothing else in this process is confined.
//
// The contract, for every caller in this package:
//
//   - cmd is ready to start: Path resolved, Env exact, standard streams
//     and SysProcAttr as the caller wants them (startConfined sets
//     SysProcAttr.Ptrace). s.Path and s.Argv are ignored.
//   - On a goroutine locked to its thread for good (runtime.LockOSThread,
//     never unlocked, so the runtime discards the thread when the
//     goroutine ends), the bounding set is emptied (s.DropCaps),
//     no_new_privs set and the seccomp filter installed (s.Seccomp) —
//     ahead of the start, on a spare thread made while the previous
//     agent ran (see spare) — and, with s.Landlock, startConfined
//     restricts the thread with landlock_restrict_self: none with a
//     thread-sync flag, so all hold for that thread only. cmd.Start
//     forks from that thread. The child has PTRACE_TRACEME set, so it stops at its
//     execve, before the agent's first instruction.
//   - While it is stopped, the confined thread joins it to the cgroups of
//     s.Procs, through descriptors opened before (Landlock checks the
//     open, not the write), and sets each of s.Rlimits on it (prlimit).
//   - The confined thread queues SIGSTOP to the child, detaches it
//     (PTRACE_DETACH with signal 0: the exec's SIGTRAP is dropped), and
//     ends. The child, untraced, takes the SIGSTOP before its first
//     instruction. Once the thread has ended (a pidfd of the thread,
//     PIDFD_THREAD), SIGCONT lets the child run. So no thread of this
//     process shares the agent's Landlock domain while the agent runs:
//     with signal scoping the agent could otherwise signal that thread
//     (tgkill), and SIGKILL or SIGSTOP to one thread hits the whole
//     harness.
//   - Then gate is called (nil: none); an error from it refuses the
//     start. SIGCONT follows its return.
//   - The parent-death signal follows the thread that forked, so
//     SysProcAttr.Pdeathsig is cleared: the child outlives its starter
//     thread; package proc's watchdog ends it if this process dies.
//   - The caller reaps the child as usual (cmd.Wait).
//   - On error no child is left: one that was started is killed and
//     reaped.
//
// It returns the child's pid.
func startConfined(cmd *exec.Cmd, s *spec, gate func() error) (int, error) {
	ruleset := -1
	if s.Landlock {
		fd, err := buildRuleset(s)
		if err != nil {
			return 0, err
		}
		ruleset = fd
		defer syscall.Close(fd)
	}
	// The cgroups are joined by writing to files opened here, unconfined:
	// Landlock checks an open, not a write to what is open.
	procs := make([]int, 0, len(s.Procs))
	defer func() {
		for _, fd := range procs {
			_ = syscall.Close(fd)
		}
	}()
	for _, p := range s.Procs {
		fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return 0, fmt.Errorf("sandbox: join cgroup %s: %w", p, err)
		}
		procs = append(procs, fd)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	cmd.SysProcAttr.Pdeathsig = 0
	type started struct {
		thread int // a pidfd of the confined thread, or -1
		err    error
	}
	done := make(chan started, 1)
	kind := confinementOf(s)
	// The next start's thread is made once this agent runs.
	defer makeSpare(kind)
	onConfinedThread(kind, func(err error) {
		if err == nil {
			err = restrictThread(ruleset)
		}
		if err != nil {
			done <- started{thread: -1, err: err}
			return
		}
		if err := cmd.Start(); err != nil {
			done <- started{thread: -1, err: err}
			return
		}
		pid := cmd.Process.Pid
		if err := waitExecStop(pid); err != nil {
			done <- started{thread: -1, err: err}
			return
		}
		thread, terr := pidfdThread(syscall.Gettid())
		err = limitChild(pid, procs, s.Rlimits)
		if err == nil && terr != nil && s.Scope&scopeSignal != 0 {
			err = fmt.Errorf("cannot wait for the starting thread to end: %w", terr)
		}
		if err == nil {
			err = syscall.Kill(pid, syscall.SIGSTOP)
		}
		if err == nil {
			err = ptraceDetach(pid)
		}
		if err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		done <- started{thread: thread, err: err}
	})
	st := <-done
	if st.thread >= 0 {
		if st.err == nil {
			st.err = waitReadable(st.thread)
		}
		_ = syscall.Close(st.thread)
	}
	err := st.err
	if err == nil && gate != nil {
		if err = gate(); err != nil {
			killChild(cmd)
			return 0, err
		}
	}
	if err == nil {
		err = syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
	}
	if err != nil {
		killChild(cmd)
		return 0, fmt.Errorf("sandbox: start %s: %w", cmd.Path, err)
	}
	return cmd.Process.Pid, nil
}

// killChild kills and reaps cmd's process, if it was started.
func killChild(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// onOwnThread runs f on a goroutine locked for good to its thread, which
// ends with it (a locked goroutine that exits takes its thread along),
// and which is not the process's main thread: the runtime never ends
// that one (it would be parked, confined, for good).
func onOwnThread(f func()) {
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != syscall.Getpid() {
			f()
			return // still locked: the thread ends
		}
		// The main thread: hold it while f runs on another.
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			f()
		}()
		<-done
		runtime.UnlockOSThread()
	}()
}

// pidfdThread opens a pidfd of thread tid of this process (PIDFD_THREAD,
// Linux 6.9): it turns readable once the thread has ended.
func pidfdThread(tid int) (int, error) {
	const (
		sysPidfdOpen = 434 // the same number on every Linux architecture
		pidfdThread  = syscall.O_EXCL
	)
	fd, _, e := syscall.RawSyscall(sysPidfdOpen, uintptr(tid), pidfdThread, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// waitReadable blocks until fd is readable.
func waitReadable(fd int) error {
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: 1 /* POLLIN */}
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0, 0, 0, 0)
		if e == 0 {
			return nil
		}
		if e != syscall.EINTR {
			return fmt.Errorf("wait for the starting thread: %w", e)
		}
	}
}

// confineThread confines the calling thread, which must be locked to its
// goroutine: the bounding set, no_new_privs and the seccomp filter of s
// (preconfine), then the Landlock ruleset (when ruleset >= 0).
func confineThread(s *spec, ruleset int) error {
	if err := preconfine(confinementOf(s)); err != nil {
		return err
	}
	return restrictThread(ruleset)
}

// restrictThread restricts the calling thread to the Landlock ruleset;
// nothing when ruleset < 0.
func restrictThread(ruleset int) error {
	if ruleset < 0 {
		return nil
	}
	if err := restrictSelf(ruleset); err != nil {
		return fmt.Errorf("landlock: restrict: %v", err)
	}
	return nil
}

// waitExecStop waits for the traced child's stop at its execve (SIGTRAP).
func waitExecStop(pid int) error {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WALL, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("wait for the exec: %w", err)
		}
		break
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return fmt.Errorf("the child did not stop at its exec (status %#x)", uint32(ws))
	}
	return nil
}

// limitChild joins the stopped child pid to the cgroups whose
// cgroup.procs files procs are open for writing, and sets its resource
// limits (prlimit asks for matching ids, not for ptrace access, and
// Landlock does not restrict it).
func limitChild(pid int, procs []int, rlimits []rlimit) error {
	if len(procs) > 0 {
		b := []byte(strconv.Itoa(pid))
		for _, fd := range procs {
			for {
				_, err := syscall.Write(fd, b)
				if err == syscall.EINTR {
					continue
				}
				if err != nil {
					return fmt.Errorf("join cgroup: %w", err)
				}
				break
			}
		}
	}
	for _, r := range rlimits {
		if err := prlimit(pid, r); err != nil {
			return fmt.Errorf("prlimit %s: %w", rlimitName(r.Resource), err)
		}
	}
	return nil
}

// writeFile writes b to an existing file with plain system calls: a
// cgroup file opened through os.OpenFile would also join the runtime's
// poller.
func writeFile(path string, b []byte) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	for {
		_, err = syscall.Write(fd, b)
		if err != syscall.EINTR {
			return err
		}
	}
}

func prlimit(pid int, r rlimit) error {
	lim := syscall.Rlimit{Cur: r.Cur, Max: r.Max}
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(r.Resource), uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func rlimitName(res int) string {
	switch res {
	case syscall.RLIMIT_DATA:
		return "RLIMIT_DATA"
	case syscall.RLIMIT_FSIZE:
		return "RLIMIT_FSIZE"
	case syscall.RLIMIT_CPU:
		return "RLIMIT_CPU"
	case rlimitNproc:
		return "RLIMIT_NPROC"
	}
	return "resource " + strconv.Itoa(res)
}

func ptraceDetach(pid int) error {
	// PTRACE_DETACH with signal 0: the exec's SIGTRAP is not delivered.
	_, _, e := syscall.RawSyscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("ptrace detach: %w", e)
	}
	return nil
}

// buildRuleset is the Landlock ruleset of s, ready for
// landlock_restrict_self; the caller closes it.
func buildRuleset(s *spec) (int, error) {
	fd, err := createRuleset(&rulesetAttr{handledFS: s.FS, handledNet: s.Net, scoped: s.Scope}, s.ABI)
	if err != nil {
		return -1, fmt.Errorf("sandbox: landlock: create ruleset: %w", err)
	}
	if err := addRules(fd, s); err != nil {
		_ = syscall.Close(fd)
		return -1, fmt.Errorf("sandbox: %w", err)
	}
	return fd, nil
}

// addRules adds s's path and port rules to ruleset.
func addRules(ruleset int, s *spec) error {
	for _, r := range s.Rules {
		var p openPath
		if r.System {
			p = systemPath(r.Path)
		} else {
			p = openRulePath(r.Path)
			if p.fd >= 0 {
				defer syscall.Close(p.fd)
			}
		}
		if p.fd < 0 {
			continue // a path that does not exist here grants nothing
		}
		access := r.Access & s.FS
		if !p.dir {
			access &= fileRights
		}
		a := newPathBeneath(access, p.fd)
		if err := addPathRule(ruleset, &a); err != nil {
			return fmt.Errorf("landlock: allow %s: %w", r.Path, err)
		}
	}
	for _, p := range s.Ports {
		a := netPortAttr{access: netConnectTCP, port: uint64(p)}
		if err := addPortRule(ruleset, &a); err != nil {
			return fmt.Errorf("landlock: allow port %d: %w", p, err)
		}
	}
	return nil
}

// openPath is a rule's path opened with O_PATH (fd -1 when it cannot be
// opened), and whether it is a directory.
type openPath struct {
	fd  int
	dir bool
}

func openRulePath(path string) openPath {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return openPath{fd: -1}
	}
	var st syscall.Stat_t
	dir := syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	return openPath{fd: fd, dir: dir}
}

// systemPaths are the system's trees, opened once for this process's
// life: every run grants the same ones.
var systemPaths sync.Map // path -> openPath

// systemPath is path opened once; never close its descriptor.
func systemPath(path string) openPath {
	if p, ok := systemPaths.Load(path); ok {
		return p.(openPath)
	}
	p := openRulePath(path)
	if prev, loaded := systemPaths.LoadOrStore(path, p); loaded {
		if p.fd >= 0 {
			_ = syscall.Close(p.fd)
		}
		return prev.(openPath)
	}
	return p
}

// errUseStart is the error of a command wrapped for a start without a
// helper and started otherwise than through its Handle: it would run
// unconfined.
var errUseStart = errors.New("sandbox: this command must be started with its sandbox.Handle's Start")
