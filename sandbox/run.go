package sandbox

import (
	"context"
	"sync"
)

// Run is the sandbox of one run: the config and the run's own
// directories. The orchestrator puts it in the context it gives a
// driver's Start ([WithRun]); driver.StartSession finds it there and
// starts the agent inside it, so every driver built on the driver
// toolkit is confined without doing anything.
type Run struct {
	Config Config
	// Workspace and Scratch are the run's directories, read-write for the
	// agent.
	Workspace, Scratch string
	// Protect are directories no grant may hold: a read-only grant of a
	// directory holding one of them (the runs root, the harness's working
	// directory, $HOME) is dropped, since Landlock cannot take back
	// access below a grant.
	Protect []string
	// Gate, when set, holds the agent between its preparation and its
	// run, so that a caller can prepare an agent ahead of time (its
	// sandbox set up, its process created) and let it go at the moment
	// it chooses: an orchestrator acquires the run's slot there, keeping
	// the start off the critical path between one agent's end and the
	// next one's start.
	//
	// The start (Handle.StartContext, which driver.StartSession uses)
	// calls it once, with the start's context, and lets the agent go
	// when it returns nil. When it is called depends on how the agent
	// is started:
	//
	//   - levels limits and landlock, started from a confined thread
	//     (the default): the agent's process exists, confined, in its
	//     cgroups with its limits set, stopped (SIGSTOP) before its
	//     first instruction, and no thread of the harness is confined;
	//     SIGCONT lets it go once the Gate returns;
	//   - level none, and the helper (a traced harness, level
	//     landlock+netns): everything but the process is ready; it is
	//     created once the Gate returns.
	//
	// A Gate that returns an error refuses the start: the process, if
	// one was created, is killed and reaped, and the start's error wraps
	// the Gate's. A Gate must return once its context ends. Time spent
	// in it is not the agent's: a driver's timeouts start after the
	// start returns.
	Gate func(context.Context) error

	mu   sync.Mutex
	info *Info
}

// Info is what a run's sandbox was, for the record.
type Info struct {
	// Level is the level in force.
	Level Level `json:"level"`
	// Requested is the level asked for ("" for the default: the strongest
	// available).
	Requested Level `json:"requested,omitempty"`
	// Refused lists what the kernel (or the machine) did not give, each
	// with the reason: "landlock: not supported by this kernel (ENOSYS)".
	Refused []string `json:"refused,omitempty"`
	// LandlockABI is the Landlock ABI version in force; 0 without Landlock.
	LandlockABI int `json:"landlockABI,omitempty"`
	// Limits are the resource limits in force, and how the process limit
	// is enforced ("pids-cgroup" or "rlimit").
	Limits       *Limits `json:"limits,omitempty"`
	ProcessLimit string  `json:"processLimit,omitempty"`
	// MemoryLimit is how the memory limit is enforced: "memory-cgroup"
	// (the whole tree; the OOM killer ends a process at the limit) or
	// "rlimit" (RLIMIT_DATA, each process; an allocation past it fails).
	MemoryLimit string `json:"memoryLimit,omitempty"`
	// ConnectPorts are the TCP ports the agent may connect to.
	ConnectPorts []int `json:"connectPorts,omitempty"`
	// Seccomp lists what the seccomp filter denies the agent beyond
	// Landlock (levels landlock and above), and why UDP is allowed when
	// it is: "unix sockets, UDP, ...".
	Seccomp string `json:"seccomp,omitempty"`
	// AgentSandbox says how the agent's own sandbox was set, when the
	// driver turned it off because this one confines the agent:
	// "codex: --sandbox danger-full-access".
	AgentSandbox []string `json:"agentSandbox,omitempty"`
	// Network is what the agent's network was at level landlock+netns;
	// Reachable what it could reach there, and Denied what the harness's
	// proxy refused it.
	Network   string   `json:"network,omitempty"`
	Reachable []string `json:"reachable,omitempty"`
	Denied    []string `json:"denied,omitempty"`
	// Metered is the tokens the harness counted in the plain-HTTP model
	// responses the forwarded endpoints and the proxy carried
	// (MeterMethod says how); nil when none held a usage object.
	Metered *Tokens `json:"metered,omitempty"`
}

type runKey struct{}

// WithRun returns ctx carrying r.
func WithRun(ctx context.Context, r *Run) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

// FromContext returns the Run ctx carries, or nil.
func FromContext(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}

// Confines reports whether the agent of the run in ctx will run under
// Landlock: a driver then turns the agent's own sandbox off (it cannot
// nest: bubblewrap's mounts are refused inside Landlock) and says so with
// NoteAgentSandbox.
func Confines(ctx context.Context) bool {
	r := FromContext(ctx)
	if r == nil {
		return false
	}
	return r.plan().level.AtLeast(LevelLandlock)
}

// NoteAgentSandbox records how a driver set its agent's own sandbox.
func NoteAgentSandbox(ctx context.Context, note string) {
	r := FromContext(ctx)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info == nil {
		r.info = &Info{}
	}
	r.info.AgentSandbox = append(r.info.AgentSandbox, note)
}

// Info is what the run's sandbox was: nil when no agent process was
// started through it.
func (r *Run) Info() *Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info == nil || r.info.Level == "" {
		return nil
	}
	c := *r.info
	return &c
}

func (r *Run) setInfo(in Info) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info != nil {
		in.AgentSandbox = r.info.AgentSandbox
		in.Denied, in.Metered = r.info.Denied, r.info.Metered
	}
	r.info = &in
}
