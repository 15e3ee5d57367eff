package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// v1Cgroup is a run's cgroup in one cgroup v1 hierarchy (pids, memory),
// which the agent joins before it runs: its limit holds for the agent's
// whole tree, whatever the processes do.
type v1Cgroup struct {
	h     *hierarchy
	dir   string
	procs string
	file  string // the limit's file
	value int64  // its value
	// base is the counter's value when this run took the cgroup: a
	// cgroup is used by one run after another, and its counters go on.
	base     int64
	once     sync.Once
	released atomic.Bool
	final    atomic.Int64 // the hits, read when the cgroup is released
	counter  counter
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
	// free are emptied cgroups for later runs: making and removing a
	// cgroup costs far more than reading whether one is empty.
	free []freeCgroup
	// dirty says a released cgroup still held a process and stayed:
	// the next newCgroup sweeps.
	dirty bool
}

// freeCgroup is an emptied cgroup, its limit and its counter's value.
type freeCgroup struct {
	dir          string
	file         string
	value, count int64
}

// maxFree bounds the emptied cgroups kept per hierarchy.
const maxFree = 64

var (
	pidsRoot   = &hierarchy{controller: "pids"}
	memoryRoot = &hierarchy{controller: "memory"}
)

// newCgroup returns a cgroup of h with file set to value: an emptied one
// of an earlier run, or a new one.
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
	if h.dirty {
		sweep(h.dir, h.live, h.free)
		h.dirty = false
	}
	cg := &v1Cgroup{h: h, file: file, value: value, counter: c}
	for n := len(h.free); n > 0 && cg.dir == ""; n = len(h.free) {
		f := h.free[n-1]
		h.free = h.free[:n-1]
		if f.file == file && f.value == value {
			cg.dir, cg.base = f.dir, f.count
			break
		}
		// Another limit: lowering a memory limit may fail while the
		// cgroup holds page cache; a new cgroup is simpler.
		_ = os.Remove(f.dir)
	}
	if cg.dir == "" {
		dir := filepath.Join(h.dir, "r-"+strconv.FormatInt(h.n.Add(1), 10))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		if err := writeFile(filepath.Join(dir, file), []byte(strconv.FormatInt(value, 10))); err != nil {
			_ = os.Remove(dir)
			return nil, err
		}
		cg.dir = dir
		cg.base = cg.count()
	}
	cg.procs = filepath.Join(cg.dir, "cgroup.procs")
	h.live[cg.dir] = true
	return cg, nil
}

// hits is how often the cgroup's limit was hit during this run.
func (c *v1Cgroup) hits() int {
	if c == nil {
		return 0
	}
	if c.released.Load() {
		return int(c.final.Load())
	}
	return int(c.count() - c.base)
}

// count reads the counter; 0 when it cannot be read.
func (c *v1Cgroup) count() int64 {
	data, err := readSmall(filepath.Join(c.dir, c.counter.file))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, c.counter.key+" "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// release keeps the cgroup for a later run when no process is left in
// it, or removes it; one still holding a process stays until a later
// sweep.
func (c *v1Cgroup) release() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		n := c.count()
		c.final.Store(n - c.base)
		c.released.Store(true)
		procs, err := readSmall(c.procs)
		empty := err == nil && len(strings.TrimSpace(string(procs))) == 0
		h := c.h
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.live, c.dir)
		if empty && len(h.free) < maxFree {
			h.free = append(h.free, freeCgroup{dir: c.dir, file: c.file, value: c.value, count: n})
			return
		}
		if err := os.Remove(c.dir); err != nil && !empty {
			h.dirty = true
		}
	})
}

// readSmall reads a small control file whole with plain system calls.
func readSmall(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 512)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

// sweep removes the run cgroups under dir but the live ones (rmdir of
// one that still holds a process fails), and those kept in free.
func sweep(dir string, live map[string]bool, free []freeCgroup) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && strings.HasPrefix(e.Name(), "r-") && !live[p] && !slices.ContainsFunc(free, func(f freeCgroup) bool { return f.dir == p }) {
			_ = os.Remove(p)
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
		sweep(filepath.Join(base, e.Name()), nil, nil)
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
