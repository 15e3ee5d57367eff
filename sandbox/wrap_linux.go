package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Extra is what a driver adds to a run's sandbox for one process.
type Extra struct {
	// Readable are files or directories the agent must read (a prompt
	// file, a script), granted read-only.
	Readable []string
	// URLs are endpoints the agent must reach; their ports are allowed.
	URLs []string
}

// Handle is a process started inside a sandbox, for what happened to it.
type Handle struct {
	info Info
	// spec is the confinement Start applies; nil when cmd starts as it
	// is (level none, or the helper).
	spec   *spec
	cgroup *v1Cgroup // pids
	memory *v1Cgroup
	net    *bridge
	gate   func(context.Context) error // Run.Gate
}

// Info is the sandbox the process runs in.
func (h *Handle) Info() Info { return h.info }

// plan is the level a run gets on this machine, and what was refused.
type plan struct {
	level   Level
	refused []string
	abi     int
	err     error // the start must be refused: the level is below Require
}

var probe struct {
	once sync.Once
	abi  int
	err  error
}

func landlockProbe() (int, error) {
	probe.once.Do(func() { probe.abi, probe.err = landlockABI() })
	if f := forcedABI.Load(); f != nil {
		if *f <= 0 {
			return 0, syscall.ENOSYS
		}
		return min(*f, probe.abi), probe.err
	}
	return probe.abi, probe.err
}

var forcedABI atomic.Pointer[int]

// ForceLandlockABI makes this process behave as on a kernel offering
// Landlock ABI abi at most (0: no Landlock, ENOSYS), for tests of the
// fallbacks; a negative abi restores the kernel's.
func ForceLandlockABI(abi int) {
	if abi < 0 {
		forcedABI.Store(nil)
		return
	}
	forcedABI.Store(&abi)
}

// Available is the strongest level this machine offers, with what the
// kernel refused of the stronger ones and the Landlock ABI version.
func Available() (Level, []string, int) {
	p := planFor(Config{Level: order[len(order)-1]})
	return p.level, p.refused, p.abi
}

func (r *Run) plan() plan { return planFor(r.Config) }

func planFor(c Config) plan {
	want := c.Level
	if want == LevelDefault {
		want = defaultLevel
		if c.Require.rank() > want.rank() {
			want = c.Require // a requirement above the default raises it
		}
	}
	p := plan{level: want}
	if want.AtLeast(LevelLandlock) {
		abi, err := landlockProbe()
		switch {
		case err != nil:
			p.level = LevelLimits
			p.refused = append(p.refused, "landlock: "+describeErrno(err))
		default:
			p.abi = abi
			if abi < 4 {
				p.refused = append(p.refused, fmt.Sprintf("landlock tcp rules: need ABI 4, the kernel has %d (any TCP port can be reached)", abi))
			}
			if abi < 6 {
				p.refused = append(p.refused, fmt.Sprintf("landlock scoping of signals and abstract unix sockets: need ABI 6, the kernel has %d", abi))
			}
		}
	}
	netnsPlan(&p)
	if c.Level != LevelDefault && c.Level.rank() < defaultLevel.rank() {
		p.refused = append(p.refused, fmt.Sprintf("level %s chosen: below the strongest available", c.Level))
	}
	if c.Require != LevelDefault && !p.level.AtLeast(c.Require) {
		p.err = fmt.Errorf("sandbox: level %s is required, but only %s is available here: %s",
			c.Require, p.level, strings.Join(p.refused, "; "))
	}
	return p
}

func describeErrno(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return "not supported by this kernel (ENOSYS)"
	case errors.Is(err, syscall.EOPNOTSUPP):
		return "disabled at boot (EOPNOTSUPP: add landlock to the lsm= kernel parameter)"
	}
	return err.Error()
}

// Wrap prepares cmd to start inside r's sandbox; start it with the
// Handle's Start, never cmd.Start (which then fails, rather than start it
// unconfined). Call it just before the start; cmd.Path must be the
// resolved executable and cmd.Env the exact environment. An error means
// the sandbox cannot be what r requires; nothing was changed.
//
// The start confines one thread of this process and forks the agent from
// it (see startConfined): no helper process. The helper (this program's
// own executable re-executed, which confines itself and execs the
// original command) remains for what must run inside the agent's process
// before its exec.
func (r *Run) Wrap(cmd *exec.Cmd, extra Extra) (*Handle, error) {
	p := r.plan()
	if p.err != nil {
		return nil, p.err
	}
	info := Info{Level: p.level, Requested: r.Config.Level, Refused: p.refused}
	if p.level == LevelNone {
		r.setInfo(info)
		return &Handle{info: info, gate: r.Gate}, nil
	}
	lim := r.Config.Limits.withDefaults()
	info.Limits = &lim
	s := spec{Path: cmd.Path, Argv: cmd.Args}
	h := &Handle{gate: r.Gate}
	if lim.MemoryBytes > 0 {
		if cg, err := newCgroup(memoryRoot, "memory.limit_in_bytes", lim.MemoryBytes, oomKills); err == nil {
			h.memory = cg
			s.Procs = append(s.Procs, cg.procs)
			info.MemoryLimit = "memory-cgroup"
		} else {
			info.MemoryLimit = "rlimit"
		}
	}
	s.Rlimits = rlimits(lim, h.memory == nil)
	if lim.Processes > 0 {
		cg, err := newCgroup(pidsRoot, "pids.max", lim.Processes, pidsEvents)
		if err == nil {
			h.cgroup = cg
			s.Procs = append(s.Procs, cg.procs)
			info.ProcessLimit = "pids-cgroup"
		} else {
			info.ProcessLimit = "rlimit"
			s.Rlimits = append(s.Rlimits, rlimit{Resource: rlimitNproc, Cur: uint64(lim.Processes), Max: uint64(lim.Processes)})
			msg := "pids cgroup: " + err.Error() + "; RLIMIT_NPROC instead"
			if os.Geteuid() == 0 {
				msg += ", which the kernel does not enforce for root: processes are not limited"
			}
			info.Refused = append(info.Refused, msg)
		}
	}
	env := cmd.Env
	if p.level.AtLeast(LevelLandlock) {
		var err error
		if env, err = r.privateDirs(env); err != nil {
			h.release()
			return nil, err
		}
		s.Landlock, s.ABI = true, p.abi
		s.FS = fsRightsOf(p.abi)
		if p.abi >= 4 {
			s.Net = netConnectTCP
			ports := r.ports(env, cmd.Args, extra.URLs)
			info.ConnectPorts = ports
			for _, port := range ports {
				s.Ports = append(s.Ports, uint16(port))
			}
		}
		if p.abi >= 6 {
			s.Scope = scopeAbstractUnix | scopeSignal
		}
		s.Rules = r.rules(cmd, env, extra)
		r.seccompPlan(&s, &info, env, cmd.Args, extra.URLs)
		s.DropCaps = os.Geteuid() == 0
		if err := hideHarness(); err != nil {
			info.Refused = append(info.Refused, "non-dumpable harness: "+err.Error()+" (an agent may read the harness's /proc/<pid>/environ)")
		}
		info.LandlockABI = p.abi
	}
	if p.level.AtLeast(LevelNetns) {
		var err error
		if env, h.net, err = r.netns(cmd, &s, &info, env, extra); err != nil {
			h.release()
			return nil, err
		}
	}
	h.info = info
	// The namespaces are set up inside the agent's process, before its
	// exec: by the helper.
	if forceHelper.Load() || needsHelper() || s.NS != nil {
		raw, err := json.Marshal(&s)
		if err != nil {
			h.release()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		cmd.Path, cmd.Err = "/proc/self/exe", nil
		cmd.Args = []string{"lux-sandbox"}
		cmd.Env = append(slices.Clip(env), envSpec+"="+string(raw))
	} else {
		cmd.Env = env
		cmd.Err = errUseStart
		h.spec = &s
	}
	r.setInfo(info)
	return h, nil
}

// forceHelper makes every start use the helper, for tests and benchmarks
// of that path.
var forceHelper atomic.Bool

// needsHelper reports whether this process must start its agents
// through the helper, the start on a confined thread being refused: it
// traces the agent (PTRACE_TRACEME), which fails when this process is
// itself traced (strace -f, a debugger following forks: its children
// are traced from their fork), or when Yama forbids it (ptrace_scope 3,
// or 2 without CAP_SYS_PTRACE). Read once, at the first start.
var needsHelper = sync.OnceValue(func() bool {
	status, _ := os.ReadFile("/proc/self/status")
	scope, _ := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	return helperNeeded(string(status), strings.TrimSpace(string(scope)), os.Geteuid())
})

// helperNeeded is needsHelper's rule, given /proc/self/status, Yama's
// ptrace_scope ("" without Yama) and the effective uid.
func helperNeeded(status, yamaScope string, euid int) bool {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok && strings.TrimSpace(v) != "0" {
			return true
		}
	}
	switch yamaScope {
	case "3":
		return true
	case "2":
		return euid != 0
	}
	return false
}

// Start starts cmd, which Wrap prepared, inside the sandbox. On success
// the agent runs confined from its first instruction. It is
// StartContext with the background context.
func (h *Handle) Start(cmd *exec.Cmd) error { return h.StartContext(context.Background(), cmd) }

// StartContext is Start, calling the run's Gate (see Run.Gate) with
// ctx before the agent is let go. A nil Handle starts cmd as it is.
func (h *Handle) StartContext(ctx context.Context, cmd *exec.Cmd) error {
	return h.StartReady(ctx, cmd, nil)
}

// StartReady is StartContext, calling ready (when not nil) where the
// Gate is called, before it: the caller's last step of preparation, done
// while the agent's process was being set up (such as waiting for a file
// the agent reads, written meanwhile). An error from ready refuses the
// start as the Gate's does. A nil Handle calls ready, then starts cmd.
func (h *Handle) StartReady(ctx context.Context, cmd *exec.Cmd, ready func() error) error {
	if h == nil || h.spec == nil {
		if ready != nil {
			if err := ready(); err != nil {
				return err
			}
		}
		if h == nil {
			return cmd.Start()
		}
		if err := h.pass(ctx); err != nil {
			return err
		}
		return cmd.Start()
	}
	if cmd.Err == errUseStart {
		cmd.Err = nil
	}
	_, err := startConfined(cmd, h.spec, func() error {
		if ready != nil {
			if err := ready(); err != nil {
				return err
			}
		}
		return h.pass(ctx)
	})
	return err
}

// pass calls the Gate, if any.
func (h *Handle) pass(ctx context.Context) error {
	if h.gate == nil {
		return nil
	}
	if err := h.gate(ctx); err != nil {
		return fmt.Errorf("sandbox: the start was refused at its gate: %w", err)
	}
	return nil
}

// Release frees what the sandbox holds (its cgroup) once every process
// in it has ended. Safe to call more than once.
func (h *Handle) Release() { h.release() }

func (h *Handle) release() {
	if h != nil {
		h.cgroup.release()
		h.memory.release()
		h.net.close()
	}
}

// LimitHit names the limit the agent ran into, judged from how its leader
// ended (SIGXCPU, SIGXFSZ) and from the process cgroup's count of refused
// forks; "" when none is known to have been hit.
func (h *Handle) LimitHit(signal string) string {
	if h == nil || h.info.Limits == nil {
		return ""
	}
	lim := h.info.Limits
	switch signal {
	case "SIGXCPU", "signal 24":
		return fmt.Sprintf("the agent exceeded the sandbox's CPU time limit (%ds, RLIMIT_CPU)", lim.CPUSeconds)
	case "SIGXFSZ", "signal 25":
		return fmt.Sprintf("the agent exceeded the sandbox's file size limit (%d bytes, RLIMIT_FSIZE)", lim.FileBytes)
	}
	if n := h.memory.hits(); n > 0 {
		return fmt.Sprintf("the agent reached the sandbox's memory limit (%d bytes, memory cgroup): the OOM killer ended %d of its processes", lim.MemoryBytes, n)
	}
	if n := h.cgroup.hits(); n > 0 {
		return fmt.Sprintf("the agent reached the sandbox's process limit (%d, pids cgroup): %d forks refused", lim.Processes, n)
	}
	return ""
}

const rlimitNproc = 6 // RLIMIT_NPROC

// rlimits are the resource limits of l; memory only when no memory
// cgroup holds the whole tree.
func rlimits(l Limits, memory bool) []rlimit {
	var out []rlimit
	add := func(res int, v, slack int64) {
		if v > 0 {
			out = append(out, rlimit{Resource: res, Cur: uint64(v), Max: uint64(v + slack)})
		}
	}
	if memory {
		add(syscall.RLIMIT_DATA, l.MemoryBytes, 0)
	}
	add(syscall.RLIMIT_FSIZE, l.FileBytes, 0)
	// SIGXCPU at the soft limit, SIGKILL at the hard one.
	add(syscall.RLIMIT_CPU, l.CPUSeconds, 5)
	return out
}

// privateDirs gives the agent a HOME and a TMPDIR of its own under the
// scratch directory, unless they already are inside the run's writable
// directories; XDG directories outside them are dropped.
func (r *Run) privateDirs(env []string) ([]string, error) {
	if r.Scratch == "" {
		return env, errors.New("sandbox: the run has no scratch directory for the agent's HOME and TMPDIR")
	}
	inside := func(p string) bool {
		return p != "" && (within(p, r.Workspace) || within(p, r.Scratch) || slices.ContainsFunc(r.Config.ReadWrite, func(d string) bool { return within(p, d) }))
	}
	out := make([]string, 0, len(env)+2)
	set := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "TMPDIR", "TMP", "TEMP":
			if inside(v) {
				set[k] = v
			}
			continue
		case "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR":
			if !inside(v) {
				continue
			}
		}
		out = append(out, kv)
	}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if set[k] != "" {
			continue
		}
		d := filepath.Join(r.Scratch, privateDirs[k])
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: private %s: %w", k, err)
		}
		set[k] = d
	}
	for _, k := range []string{"HOME", "TMPDIR", "TMP", "TEMP"} {
		if v := set[k]; v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// systemRO are the system and toolchain trees every agent may read.
var systemRO = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store", "/snap", "/proc", "/sys"}

// devices are the device files every agent may use.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

const rwRights = 1<<16 - 1

// rules are the run's Landlock grants.
func (r *Run) rules(cmd *exec.Cmd, env []string, extra Extra) []rule {
	var out []rule
	ro := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if p == "/" || slices.ContainsFunc(r.Protect, func(d string) bool { return d != "" && within(d, p) }) {
			return // it would expose a protected directory
		}
		out = append(out, rule{Path: p, Access: readRights})
	}
	for _, d := range systemRO {
		out = append(out, rule{Path: d, Access: readRights, System: true})
	}
	out = append(out, rule{Path: "/dev", Access: fsReadDir, System: true})
	for _, d := range devices {
		out = append(out, rule{Path: d, Access: fsReadFile | fsWriteFile | fsTruncate | fsIoctlDev | fsReadDir, System: true})
	}
	out = append(out, rule{Path: runtime.GOROOT(), Access: readRights, System: true})
	// A path with no link in it beneath a system tree is granted already.
	// (A path with links may lead out of it: only its resolved form is
	// looked at.)
	covered := func(real string) bool {
		return real != "" && (slices.ContainsFunc(systemRO, func(d string) bool { return within(real, d) }) || within(real, runtime.GOROOT()))
	}
	// The command (a rule opens its path, links followed), its directory
	// and, for a command installed as an npm package, the node_modules
	// tree it runs from.
	real := resolvedDir(cmd.Path)
	if !covered(real) {
		out = append(out, rule{Path: cmd.Path, Access: readRights})
	}
	for _, c := range []string{cmd.Path, real} {
		if c == "" {
			continue
		}
		if d := filepath.Dir(c); !covered(resolvedDir(d)) {
			ro(d)
		}
		if i := strings.Index(c, "/node_modules/"); i >= 0 {
			if nm := c[:i+len("/node_modules")]; !covered(resolvedDir(nm)) {
				ro(nm)
			}
		}
	}
	if v, ok := lookup(env, "PATH"); ok {
		for _, d := range filepath.SplitList(v) {
			// A directory is granted as its resolved path (a rule opens
			// its path, links followed).
			if rd := resolvedDir(d); rd == "" {
				ro(d)
			} else if !covered(rd) {
				ro(rd)
			}
		}
	}
	for _, p := range append(append([]string(nil), extra.Readable...), r.Config.ReadOnly...) {
		ro(p)
	}
	for _, p := range append([]string{r.Workspace, r.Scratch}, r.Config.ReadWrite...) {
		if p != "" {
			out = append(out, rule{Path: p, Access: rwRights})
		}
	}
	return out
}

// resolvedDirs caches resolvedDir: the commands, their directories and
// those of a PATH are the same from run to run, and where their links
// point does not change while a harness runs. (Should one change, a
// stale resolution grants no more: the command's own rule opens its
// path as it is at the start, and a directory it names is one granted
// before, checked against Protect again.)
var resolvedDirs sync.Map // path -> resolved

// resolvedDir is resolved for a command or a directory, cached.
func resolvedDir(d string) string {
	if r, ok := resolvedDirs.Load(d); ok {
		return r.(string)
	}
	r := resolved(d)
	resolvedDirs.Store(d, r)
	return r
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return ""
}

func lookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// ports are the TCP ports the agent may connect to: 443, the configured
// ones, and the port of every URL in its environment, its arguments and
// extra.
func (r *Run) ports(env, args, urls []string) []int {
	set := map[int]bool{443: true}
	for _, p := range r.Config.ConnectPorts {
		set[p] = true
	}
	for _, u := range endpoints(env, args, urls) {
		if p := urlPort(u.String()); p > 0 {
			set[p] = true
		}
	}
	out := make([]int, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func urlPort(s string) int {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return 0
	}
	if p := u.Port(); p != "" {
		n, _ := strconv.Atoi(p)
		return n
	}
	switch u.Scheme {
	case "http", "ws":
		return 80
	}
	return 443
}

var hidden struct {
	once sync.Once
	err  error
}

// hideHarness makes this process non-dumpable (PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem and the like are then open only to a process
// with CAP_SYS_PTRACE, which no agent has. Landlock alone refuses ptrace
// and /proc/<pid>/mem, but not /proc/<pid>/environ.
func hideHarness() error {
	hidden.once.Do(func() {
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
			hidden.err = e
		}
	})
	return hidden.err
}
