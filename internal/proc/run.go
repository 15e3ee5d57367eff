package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/luxeval/lux/internal/clock"
)

// DefaultMaxOutput is how many bytes of each output stream Run keeps when
// the Spec sets no cap.
const DefaultMaxOutput = 10_000_000

// DrainTimeout bounds how long Run keeps reading output after the command's
// process group is gone, for a descendant that escaped the group and still
// holds the output open.
const DrainTimeout = time.Second

// MinimalEnv is the environment Run gives a command whose Spec has no Env:
// only PATH=DefaultPath.
func MinimalEnv() []string { return []string{"PATH=" + DefaultPath} }

// Spec is a command for Run. The zero value of every field but Path means
// its default.
type Spec struct {
	// Path is the program: a path, or a name looked up in this process's PATH.
	Path string
	Args []string // arguments, not including the program name
	Dir  string   // working directory; empty means this process's
	// Env is the command's exact environment; nil means MinimalEnv().
	Env []string
	// Input is written to standard input, which is then closed; with no
	// input the command reads end of file at once.
	Input []byte
	// Timeout stops the command's whole process group after this long, on
	// the clock ctx carries (the system's unless a test gave another);
	// zero means no limit beyond ctx.
	Timeout time.Duration
	// MaxOutput caps the bytes kept of stdout and of stderr each;
	// zero means DefaultMaxOutput. Output beyond it is read and dropped.
	MaxOutput int
	// Grace is the time between SIGTERM and SIGKILL when the command is
	// stopped; zero means DefaultGrace.
	Grace time.Duration
}

// Result is how a command ran.
type Result struct {
	Status                           // how the leader ended
	Stdout, Stderr                   []byte
	StdoutTruncated, StderrTruncated bool
	TimedOut                         bool // stopped by Spec.Timeout
	Duration                         time.Duration
}

// Run runs spec in its own process group and returns once it has ended.
// When the leader exits, whatever it left running in its group is killed.
// A command that exits non-zero or times out is not an error: the Result
// says so. The error is for a command that could not start, or ctx ending
// (the group is stopped and the partial Result returned with ctx.Err()).
func Run(ctx context.Context, spec Spec) (Result, error) {
	if spec.Path == "" {
		return Result{}, errors.New("proc: empty command")
	}
	limit := spec.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	env := spec.Env
	if env == nil {
		env = MinimalEnv()
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("proc: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return Result{}, fmt.Errorf("proc: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, outR, outW)
		return Result{}, fmt.Errorf("proc: %w", err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, outW, errW
	start := time.Now()
	g, err := Start(cmd)
	closeAll(stdinR, outW, errW) // the child holds its own copies
	if err != nil {
		closeAll(stdinW, outR, errR)
		return Result{}, fmt.Errorf("proc: start %s: %w", spec.Path, err)
	}

	inputDone := make(chan struct{})
	go func() {
		defer close(inputDone)
		if len(spec.Input) > 0 {
			_, _ = stdinW.Write(spec.Input) // EPIPE: the command did not read it all
		}
		_ = stdinW.Close()
	}()
	stdout, stderr := &CappedBuffer{Max: limit}, &CappedBuffer{Max: limit}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(stdout, outR) }()
	go func() { defer wg.Done(); _, _ = io.Copy(stderr, errR) }()

	var timeout chan struct{}
	if spec.Timeout > 0 { // on ctx's clock, which tests may drive
		timeout = make(chan struct{})
		t := clock.From(ctx).AfterFunc(spec.Timeout, func() { close(timeout) })
		defer t.Stop()
	}
	res := Result{}
	var runErr error
	select {
	case <-g.Exited():
		_ = g.Kill() // leftovers of a leader that is gone
	case <-timeout:
		res.TimedOut = true
		_ = g.Stop(context.WithoutCancel(ctx), spec.Grace)
	case <-ctx.Done():
		runErr = ctx.Err()
		_ = g.Stop(context.WithoutCancel(ctx), spec.Grace)
	}
	<-g.Exited()
	_ = g.Stop(context.WithoutCancel(ctx), spec.Grace) // the leader is gone: whatever it left is killed
	waitBounded(&wg, DrainTimeout)
	closeAll(outR, errR) // unblocks readers held by an escaped descendant
	wg.Wait()
	_ = stdinW.Close() // unblocks a writer of input an escaped descendant never reads
	<-inputDone

	res.Status = g.Status()
	res.Duration = time.Since(start)
	res.Stdout, res.StdoutTruncated = stdout.Bytes(), stdout.Truncated()
	res.Stderr, res.StderrTruncated = stderr.Bytes(), stderr.Truncated()
	return res, runErr
}

// waitBounded waits for wg for at most d.
func waitBounded(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// CappedBuffer keeps the first Max bytes written to it and counts the rest
// as truncated. Writes never fail. Safe for concurrent use.
type CappedBuffer struct {
	Max int

	mu        sync.Mutex
	buf       []byte
	truncated bool
}

// Write keeps what fits under Max and reports len(p) written.
func (b *CappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.Max - len(b.buf)
	if room < len(p) {
		b.truncated = true
		if room > 0 {
			b.buf = append(b.buf, p[:room]...)
		}
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Bytes returns a copy of what was kept.
func (b *CappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

// Truncated reports whether anything was dropped.
func (b *CappedBuffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.truncated
}
