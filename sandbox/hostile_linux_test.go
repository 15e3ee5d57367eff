package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/luxeval/lux/internal/fakeproc"
)

// envAttack makes the test binary a hostile agent: it runs the attack
// named by its arguments and prints "ALLOWED" or "DENIED <error>".
const envAttack = "LUX_SANDBOX_TEST_ATTACK"

func init() {
	if os.Getenv(envAttack) != "" {
		attack(os.Args[1:])
		fakeproc.Exit(0)
	}
}

func attack(args []string) {
	err := attackErr(args[0], args[1:])
	if err != nil {
		fmt.Printf("DENIED %v\n", err)
		return
	}
	fmt.Println("ALLOWED")
}

func attackErr(name string, a []string) error {
	num := func(i int) int { n, _ := strconv.Atoi(a[i]); return n }
	switch name {
	case "wait":
		fmt.Println("READY")
		time.Sleep(time.Minute)
		return nil
	case "write":
		return os.WriteFile(a[0], []byte("forged"), 0o644)
	case "traced":
		// ALLOWED when something traces this process or a SIGTRAP waits
		// for it: the start's ptrace stop must leave no trace.
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch {
			case k == "TracerPid" && v != "0":
				return nil
			case (k == "SigPnd" || k == "ShdPnd") && strings.Trim(v, "0") != "":
				return nil
			}
		}
		return errors.New("not traced")
	case "status":
		// Prints the field a[0] of /proc/self/status ("CapBnd").
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, a[0]+":"); ok {
				fmt.Printf("%s ", strings.TrimSpace(v))
			}
		}
		return nil
	case "rlimit":
		var l syscall.Rlimit
		if err := syscall.Getrlimit(num(0), &l); err != nil {
			return err
		}
		fmt.Printf("%d %d ", l.Cur, l.Max)
		return nil
	case "read":
		_, err := os.ReadFile(a[0])
		return err
	case "list":
		_, err := os.ReadDir(a[0])
		return err
	case "environ":
		b, err := os.ReadFile("/proc/" + a[0] + "/environ")
		if err == nil && len(b) == 0 {
			return errors.New("empty")
		}
		return err
	case "mem":
		f, err := os.Open("/proc/" + a[0] + "/mem")
		if err == nil {
			f.Close()
		}
		return err
	case "ptrace":
		if err := syscall.PtraceAttach(num(0)); err != nil {
			return err
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(num(0), &ws, syscall.WALL, nil)
		return syscall.PtraceDetach(num(0))
	case "kill":
		return syscall.Kill(num(0), syscall.SIGCONT)
	case "tgkill":
		// Signal 0 to each thread of process a[0]: the permission checks
		// of a real signal (SIGKILL to any thread ends the process),
		// without its effect.
		tasks, err := os.ReadDir("/proc/" + a[0] + "/task")
		if err != nil {
			return err
		}
		var last error = errors.New("no thread")
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			_, _, e := syscall.RawSyscall(syscall.SYS_TGKILL, uintptr(num(0)), uintptr(tid), 0)
			if e == 0 {
				fmt.Printf("thread %d: ", tid)
				return nil
			}
			last = e
		}
		return last
	case "connect":
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+a[0], 2*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "abstract":
		c, err := net.Dial("unix", "@"+a[0])
		if err == nil {
			c.Close()
		}
		return err
	case "fork":
		n := num(0)
		var cmds []*exec.Cmd
		defer func() {
			for _, c := range cmds {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		}()
		for i := 0; i < n; i++ {
			c := exec.Command("/bin/sleep", "30")
			if err := c.Start(); err != nil {
				return fmt.Errorf("process %d: %w", i+1, err)
			}
			cmds = append(cmds, c)
		}
		return nil
	case "alloc":
		b, err := syscall.Mmap(-1, 0, num(0)<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return err
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		return syscall.Munmap(b)
	case "bigfile":
		f, err := os.Create(a[0])
		if err != nil {
			return err
		}
		defer f.Close()
		chunk := make([]byte, 1<<20)
		for i := 0; i < num(1); i++ {
			if _, err := f.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}
	if f := netAttacks[name]; f != nil {
		return f(a)
	}
	if f := sockAttacks[name]; f != nil {
		return f(a)
	}
	return errors.New("unknown attack " + name)
}
