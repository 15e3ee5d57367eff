package mcpprobe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/sandbox"
)

// stderrTail is how much of a stdio server's stderr an error event quotes.
const stderrTail = 4 << 10

// expander expands the run's placeholders.
func expander(info lux.StartInfo) func(string) string {
	r := strings.NewReplacer(PlaceholderArtifactsDir, info.Workspace, PlaceholderRunDir, info.RunDir)
	return r.Replace
}

// startStdio starts the server in its own process group, inside the
// sandbox of the run in ctx, and returns the SDK transport over its
// stdin and stdout: the SDK does the framing.
func (c *Config) startStdio(ctx context.Context, info lux.StartInfo) (*driver.Process, mcp.Transport, error) {
	path, err := driver.ResolveCommand(driver.CommandPath(info.CaseDir, c.Command))
	if err != nil {
		return nil, nil, fmt.Errorf("mcp-probe: %w", err)
	}
	expand := expander(info)
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = expand(a)
	}
	dir := info.Workspace
	if c.Cwd != "" {
		d := expand(c.Cwd)
		if !filepath.IsAbs(d) {
			d = filepath.Join(info.Workspace, d)
		}
		dir = d
	}
	p, err := driver.StartProcess(driver.ProcessSpec{
		Path:       path,
		Args:       args,
		Dir:        dir,
		Env:        c.environ(expand),
		Stderr:     info.Stderr,
		StderrTail: stderrTail,
		// The server is the agent under test: it runs in the run's
		// sandbox, as every agent does.
		Sandbox: sandbox.FromContext(ctx),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("mcp-probe: %w", err)
	}
	t := &mcp.IOTransport{
		Reader:        &stdout{p: p},
		Writer:        &stdin{in: p.Stdin()},
		MaxLineLength: c.MaxMessageBytes,
	}
	return p, t, nil
}

// environ is the server's environment: the whole host environment with
// inheritEnv: true, else a fixed PATH and the host variables inheritEnv
// names; then Env with its placeholders expanded.
func (c *Config) environ(expand func(string) string) []string {
	inherited := map[string]string{}
	for _, k := range c.InheritEnv.Names {
		if v, ok := os.LookupEnv(k); ok {
			inherited[k] = v
		}
	}
	env := make(map[string]string, len(c.Env))
	for k, v := range c.Env {
		env[k] = expand(v)
	}
	base := map[string]string{"PATH": driver.DefaultPath}
	if c.InheritEnv.All {
		base = nil // the host's own PATH
	}
	return driver.BuildEnv(c.InheritEnv.All, base, inherited, env)
}

// stdout is the server's stdout for the SDK. Closing it closes only
// stdout: stderr keeps being copied until the process is gone.
type stdout struct{ p *driver.Process }

func (s *stdout) Read(b []byte) (int, error) { return s.p.Stdout().Read(b) }

func (s *stdout) Close() error {
	if c, ok := s.p.Stdout().(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// stdin is the server's stdin for the SDK. Closing it does not close the
// server's stdin: the SDK closes its transport when it gives up on a
// server (an initialize answer it refuses, say), and the server's exit at
// that end of input would bury the reason. The session's teardown ends
// the input, the first step of driver.Process.Stop.
type stdin struct{ in *driver.Stdin }

func (s *stdin) Write(b []byte) (int, error) {
	if err := s.in.Write(context.Background(), b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (s *stdin) Close() error { return nil }

// httpTransport is the SDK's streamable HTTP client for a running server.
func (c *Config) httpTransport(info lux.StartInfo) (mcp.Transport, error) {
	expand := expander(info)
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(k, expand(v))
	}
	for k, name := range c.HeadersFromEnv {
		v, ok := os.LookupEnv(name)
		if !ok {
			return nil, fmt.Errorf("mcp-probe: headersFromEnv.%s: the harness's environment has no %s (set it, or remove the header)", k, name)
		}
		h.Set(k, v)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &mcp.StreamableClientTransport{
		Endpoint:             c.URL,
		HTTPClient:           &http.Client{Transport: &headerTransport{base: base, h: h}},
		MaxRetries:           -1, // a probe reports a failure; it does not paper over it
		DisableStandaloneSSE: true,
	}, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base *http.Transport
	h    http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header[k] = v
		}
	}
	return t.base.RoundTrip(r)
}

// watched wraps a transport to keep the first error reading from the
// server: the SDK reports a broken connection as closed, and the reason
// (junk on stdout, a message over the cap) would be lost.
type watched struct {
	mcp.Transport
	mu  sync.Mutex
	err error
}

func (w *watched) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: conn, w: w}, nil
}

// readErr is the first error reading from the server, or nil.
func (w *watched) readErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

type watchedConn struct {
	mcp.Connection
	w *watched
}

func (c *watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, mcp.ErrConnectionClosed) && ctx.Err() == nil {
		c.w.mu.Lock()
		if c.w.err == nil {
			c.w.err = err
		}
		c.w.mu.Unlock()
	}
	return m, err
}
