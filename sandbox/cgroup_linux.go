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

// v1Cgroup is a run's cgroup in one cgroup v1 hierarchy (pids, memory),
// which the helper joins before it execs the agent: its limit holds for
// the agent's whole tree, whatever the processes do.
type v1Cgroup struct {
	h       *hierarchy
	dir     string
	procs   string
	once    sync.Once
	final   atomic.Int64 // the count of events, read when the cgroup is removed
	counter counter
}

// counter reads how often the limit was hit from a cgroup's files.
type counter struct{ file, key string }

var (
	// pidsEvents counts the forks pids.max refused.
	pidsEvents = counter{"pids.events", "max"}
	// oomKills counts the processes the OOM killer ended at the limit.
	oomKills = counter{"memory.oom_control", "oom_kill"}
)

// hierarchy is this process's directory in a v1 hierarchy.
type hierarchy struct {
	controller string
	once       sync.Once
	dir        string // <mount>/<own cgroup>/lux-<pid>
	err        error
	n          atomic.Int64

	mu   sync.Mutex
	live map[string]bool // the cgroups of runs not yet released
}

var (
	pidsRoot   = &hierarchy{controller: "pids"}
	memoryRoot = &hierarchy{controller: "memory"}
)

// newCgroup creates a cgroup of h with file set to value.
func newCgroup(h *hierarchy, file string, value int64, c counter) (*v1Cgroup, error) {
	h.once.Do(func() { h.dir, h.err = parentIn(h.controller) })
	if h.err != nil {
		return nil, h.err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live == nil {
		h.live = map[string]bool{}
	}
	sweep(h.dir, h.live)
	dir := filepath.Join(h.dir, "r-"+strconv.FormatInt(h.n.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(value, 10)), 0); err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	h.live[dir] = true
	return &v1Cgroup{h: h, dir: dir, procs: filepath.Join(dir, "cgroup.procs"), counter: c}, nil
}

// hits is how often the cgroup's limit was hit.
func (c *v1Cgroup) hits() int {
	if c == nil {
		return 0
	}
	if n := c.final.Load(); n > 0 {
		return int(n)
	}
	data, err := os.ReadFile(filepath.Join(c.dir, c.counter.file))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, c.counter.key+" "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// release removes the cgroup; one still holding a process stays until a
// later sweep.
func (c *v1Cgroup) release() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		c.final.Store(int64(c.hits()))
		c.h.mu.Lock()
		delete(c.h.live, c.dir)
		c.h.mu.Unlock()
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

// parentIn creates this process's directory in the hierarchy of
// controller, removing those of harnesses that are gone.
func parentIn(controller string) (string, error) {
	mount, err := mountOf(controller)
	if err != nil {
		return "", err
	}
	own, err := ownV1(controller)
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

// mountOf is where the cgroup v1 hierarchy of controller is mounted.
func mountOf(controller string) (string, error) {
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
		if len(fields) < 3 || !hasOption(fields[2], controller) {
			continue
		}
		f := strings.Fields(pre)
		if len(f) >= 5 && f[3] == "/" {
			return f[4], nil
		}
	}
	return "", fmt.Errorf("no cgroup v1 %s hierarchy is mounted", controller)
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
