package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// pidsCgroup is a run's cgroup in the pids hierarchy (cgroup v1), which
// the helper joins before it execs the agent: pids.max caps the processes
// and threads of the agent's whole tree, whatever they do.
type pidsCgroup struct {
	dir   string
	procs []string
	once  sync.Once
	final atomic.Int64 // refused forks, read when the cgroup is removed
}

var pidsRoot struct {
	once sync.Once
	dir  string // <pids mount>/<own cgroup>/lux-<pid>
	err  error
	n    atomic.Int64

	mu   sync.Mutex
	live map[string]bool // the cgroups of runs not yet released
}

// newPidsCgroup creates a cgroup capped at max processes.
func newPidsCgroup(max int64) (*pidsCgroup, error) {
	pidsRoot.once.Do(func() { pidsRoot.dir, pidsRoot.err = pidsParent() })
	if pidsRoot.err != nil {
		return nil, pidsRoot.err
	}
	pidsRoot.mu.Lock()
	defer pidsRoot.mu.Unlock()
	if pidsRoot.live == nil {
		pidsRoot.live = map[string]bool{}
	}
	sweep(pidsRoot.dir, pidsRoot.live)
	dir := filepath.Join(pidsRoot.dir, "r-"+strconv.FormatInt(pidsRoot.n.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatInt(max, 10)), 0); err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	pidsRoot.live[dir] = true
	return &pidsCgroup{dir: dir, procs: []string{filepath.Join(dir, "cgroup.procs")}}, nil
}

// refused is how many forks pids.max refused.
func (c *pidsCgroup) refused() int {
	if n := c.final.Load(); n > 0 {
		return int(n)
	}
	data, err := os.ReadFile(filepath.Join(c.dir, "pids.events"))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "max "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// release removes the cgroup; one still holding a process stays until a
// later sweep.
func (c *pidsCgroup) release() {
	c.once.Do(func() {
		c.final.Store(int64(c.refused()))
		pidsRoot.mu.Lock()
		delete(pidsRoot.live, c.dir)
		pidsRoot.mu.Unlock()
		_ = os.Remove(c.dir)
	})
}

// sweep removes the empty run cgroups under dir (rmdir of one that still
// holds a process fails) but the live ones, which may not have been
// joined yet.
func sweep(dir string, live map[string]bool) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "r-") && !live[filepath.Join(dir, e.Name())] {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// pidsParent creates this process's directory in the pids hierarchy,
// removing those of harnesses that are gone.
func pidsParent() (string, error) {
	mount, err := pidsMount()
	if err != nil {
		return "", err
	}
	own, err := ownV1("pids")
	if err != nil {
		return "", err
	}
	base := filepath.Join(mount, own)
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "lux-"))
		if err != nil || !strings.HasPrefix(e.Name(), "lux-") || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		sweep(filepath.Join(base, e.Name()), nil)
		_ = os.Remove(filepath.Join(base, e.Name()))
	}
	dir := filepath.Join(base, "lux-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	return dir, nil
}

// pidsMount is where the cgroup v1 pids hierarchy is mounted.
func pidsMount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup ") {
			continue
		}
		fields := strings.Fields(post)
		if len(fields) < 3 || !hasOption(fields[2], "pids") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) >= 5 && f[3] == "/" {
			return f[4], nil
		}
	}
	return "", errors.New("no cgroup v1 pids hierarchy is mounted")
}

func hasOption(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// ownV1 is this process's cgroup in the v1 hierarchy of controller.
func ownV1(controller string) (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && hasOption(parts[1], controller) {
			return parts[2], nil
		}
	}
	return "", fmt.Errorf("not in a cgroup v1 %s hierarchy", controller)
}
