package temporal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// CLIEnv names the Temporal CLI the end-to-end tests start a dev server
// with; they are skipped without it (.ci/run sets it).
const CLIEnv = "LUX_TEMPORAL_CLI"

// freePort returns a TCP port on 127.0.0.1 free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// devServer starts `temporal server start-dev` (in memory, headless) on
// free ports and returns its frontend's address and a client, once the
// default namespace answers; the server is stopped at the test's end.
func devServer(t testing.TB) (string, client.Client) {
	t.Helper()
	cliPath := os.Getenv(CLIEnv)
	if cliPath == "" {
		t.Skipf("%s is not set: it names the Temporal CLI (go install github.com/temporalio/cli/cmd/temporal@v1.5.1) the end-to-end tests start a dev server with; .ci/run sets it", CLIEnv)
	}
	port := freePort(t)
	hostPort := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(cliPath, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--http-port", fmt.Sprint(freePort(t)), "--metrics-port", fmt.Sprint(freePort(t)), "--log-level", "error")
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	// Wait until the frontend answers for the default namespace; each
	// try is one RPC that fails fast while the port is closed.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		select {
		case err := <-exited:
			t.Fatalf("the dev server exited: %v\n%s", err, logs.String())
		default:
		}
		c, err := client.Dial(client.Options{HostPort: hostPort, Logger: quietLogger()})
		if err == nil {
			_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
			if err == nil {
				t.Cleanup(c.Close)
				return hostPort, c
			}
			c.Close()
		}
		if ctx.Err() != nil {
			t.Fatalf("the dev server did not answer on %s: %v\n%s", hostPort, err, logs.String())
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// buildLux builds cmd/lux-temporal into dir.
func buildLux(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "lux-temporal")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/lux-temporal").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// proc is a lux-temporal process the test started.
type proc struct {
	cmd    *exec.Cmd
	out    syncBuffer
	exited chan struct{}
	err    error
}

// start starts bin with args in dir; when ready is set, it returns once
// a line of stdout contains it.
func start(t testing.TB, bin, dir, ready string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stderr = &p.out
	stdout, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	seen := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.out.Write(append(sc.Bytes(), '\n'))
			if ready != "" && strings.Contains(sc.Text(), ready) {
				once.Do(func() { close(seen) })
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	if ready != "" {
		select {
		case <-seen:
		case <-p.exited:
			t.Fatalf("%s %v exited before it was ready: %v\n%s", bin, args, p.err, p.out.String())
		}
	}
	return p
}

// wait waits for the process to exit and returns its exit status.
func (p *proc) wait() int {
	<-p.exited
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// syncBuffer is an output buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ io.Writer = (*syncBuffer)(nil)
