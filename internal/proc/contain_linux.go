package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// host is this process's containment, set up on first use.
var host struct {
	once sync.Once
	mode Containment // the strongest available
	// parent is this process's own cgroup for its groups, <cgroup>/lux-<pid>.
	parent string
	n      atomic.Int64

	mu        sync.Mutex
	forced    Containment
	subreaper bool // PR_SET_CHILD_SUBREAPER is set
	// watchdog is the write end of the watchdog's standard input: when this
	// process ends, however it ends, the watchdog reads end of file and
	// kills what is left.
	watchdog *os.File
}

// ForceContainment makes the groups started from now on use c, or the
// strongest containment available when c is not (a cgroup is used only
// when one can be created); "" restores the default. For tests of the
// fallbacks.
func ForceContainment(c Containment) {
	host.mu.Lock()
	defer host.mu.Unlock()
	host.forced = c
}

// HostContainment is the strongest containment this process can give the
// groups it starts (set up on first use).
func HostContainment() Containment {
	host.once.Do(setupHost)
	return host.mode
}

func setupHost() {
	host.mode = ContainGroup
	if dir, err := createParentCgroup(); err == nil {
		host.parent, host.mode = dir, ContainCgroup
	} else if setSubreaper() {
		host.mode = ContainSubreaper
	}
	startWatchdog()
}

// setSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER): orphans of its descendants re-parent to it
// instead of init, so they can still be found.
func setSubreaper() bool {
	if host.subreaper {
		return true
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36, 1, 0); e == 0 {
		host.subreaper = true
	}
	return host.subreaper
}

// containment is the containment of the next group.
func containment() Containment {
	mode := HostContainment()
	host.mu.Lock()
	defer host.mu.Unlock()
	switch host.forced {
	case ContainGroup:
		return ContainGroup
	case ContainSubreaper:
		if setSubreaper() {
			return ContainSubreaper
		}
		return ContainGroup
	}
	if mode == ContainSubreaper && !setSubreaper() {
		return ContainGroup
	}
	return mode
}

// ownCgroup is the cgroup v2 directory of this process, or an error when
// the unified hierarchy is not mounted.
func ownCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 membership")
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// "id parent maj:min root mountpoint options ... - fstype source superoptions"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 || f[3] != "/" {
			continue
		}
		return filepath.Join(unescapeMount(f[4]), rel), nil
	}
	return "", errors.New("cgroup v2 is not mounted")
}

// unescapeMount undoes the octal escapes of a mountinfo path (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// createParentCgroup creates <own cgroup>/lux-<pid>, removing what dead
// harnesses left there, and checks that a process can be started into a
// cgroup below it.
func createParentCgroup() (string, error) {
	own, err := ownCgroup()
	if err != nil {
		return "", err
	}
	removeStale(own)
	dir := filepath.Join(own, "lux-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	probe := filepath.Join(dir, "probe")
	err = func() error {
		if err := os.Mkdir(probe, 0o755); err != nil {
			return err
		}
		defer os.Remove(probe)
		fd, err := syscall.Open(probe, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		cmd := exec.Command("/bin/sh", "-c", ":")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
		return cmd.Run()
	}()
	if err != nil {
		_ = os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// removeStale kills and removes the lux-<pid> cgroups under own whose
// harness is gone.
func removeStale(own string) {
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "lux-"))
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "lux-") || err != nil || pid == os.Getpid() || Alive(pid) {
			continue
		}
		dir := filepath.Join(own, e.Name())
		_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
		subs, _ := os.ReadDir(dir)
		for _, s := range subs {
			if s.IsDir() {
				_ = os.Remove(filepath.Join(dir, s.Name()))
			}
		}
		_ = os.Remove(dir)
	}
}

// watchdogScript keeps the process groups it is told about ("+ PGID",
// "- PGID") and, at end of file on its stdin (this process ended), kills
// them and every process of the cgroup $1. (No "--" before the group:
// dash's kill takes it for a number and kills nothing.)
const watchdogScript = `cg=$1
set --
while read -r op id; do
	case $op in
	+) set -- "$@" "$id" ;;
	-) n=; for g do [ "$g" = "$id" ] || n="$n $g"; done; set -- $n ;;
	esac
done
for g do kill -KILL "-$g" 2>/dev/null; done
[ -n "$cg" ] || exit 0
echo 1 > "$cg/cgroup.kill" 2>/dev/null
i=0
while [ -d "$cg" ] && [ $i -lt 200 ]; do
	for d in "$cg"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
	rmdir "$cg" 2>/dev/null || sleep 0.05
	i=$((i+1))
done
exit 0`

func startWatchdog() {
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "lux-watchdog", host.parent)
	cmd.Stdin = r
	cmd.Dir = "/"
	cmd.Env = MinimalEnv()
	// Its own group: a Ctrl-C to the harness's group must not stop it
	// before it has done its job.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return
	}
	_ = r.Close()
	host.watchdog = w
	go func() { _ = cmd.Wait() }()
}

func tellWatchdog(line string) {
	host.mu.Lock()
	defer host.mu.Unlock()
	if host.watchdog != nil {
		_, _ = host.watchdog.WriteString(line + "\n")
	}
}

// prepare readies cmd for containment before it starts and returns the
// container to use once it has.
func prepare(cmd *exec.Cmd) (container, error) {
	mode := containment()
	// A harness killed outright takes the leader with it.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	switch mode {
	case ContainCgroup:
		dir := reuseCgroup()
		if dir == "" {
			dir = filepath.Join(host.parent, "g-"+strconv.FormatInt(host.n.Add(1), 10))
			if err := os.Mkdir(dir, 0o755); err != nil {
				return nil, fmt.Errorf("proc: create cgroup: %w", err)
			}
		}
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			_ = os.Remove(dir)
			return nil, fmt.Errorf("proc: open cgroup: %w", err)
		}
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
		return &cgroup{dir: dir, fd: fd}, nil
	case ContainSubreaper:
		token := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(host.n.Add(1), 10)
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, TreeEnv+"="+token)
		return &tree{token: token, adopted: map[int]bool{}}, nil
	}
	return &groupOnly{}, nil
}
