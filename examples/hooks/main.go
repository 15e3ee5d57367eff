// Command hooks shows lifecycle hooks starting a real local service for a
// suite, with no model and no API key:
//
//	go run ./examples/hooks
//
// The hook plugin "greeting-service" starts a small HTTP server on
// 127.0.0.1 before the suite's first run (suite setup) and stops it after
// the last (its cleanup); before each run it writes the server's address
// into the run's workspace (case setup). The example agent (./agent) reads
// the address, asks the server for a greeting and writes it to
// greeting.txt, which the case's assertion checks. A project names the
// hook in lux.json ({"hooks": [{"name": "greeting-service"}]}) once its
// binary registers the plugin with Registry.RegisterHook.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the run records go to")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := example(ctx, os.Stdout, *root); err != nil {
		fmt.Fprintln(os.Stderr, "hooks:", err)
		os.Exit(1)
	}
}

// greetingConfig is the hook's config: the greeting the service gives.
type greetingConfig struct {
	Greeting string `json:"greeting"`

	mu     sync.Mutex
	url    string
	served atomic.Int64
	w      io.Writer
}

// GreetingService is the hook plugin.
func GreetingService(w io.Writer) *lux.HookPlugin {
	return &lux.HookPlugin{
		Name: "greeting-service", Version: "1",
		Doc: "Starts an HTTP server on 127.0.0.1 for the suite and tells each run its address in service.url.",
		Parse: func(raw json.RawMessage) (lux.Hook, error) {
			c := &greetingConfig{Greeting: "hello from the service", w: w}
			if err := lux.DecodeConfig(raw, c); err != nil {
				return nil, err
			}
			return c, nil
		},
	}
}

func (c *greetingConfig) SetupSuite(ctx context.Context, s lux.SuiteScope) (lux.Cleanup, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/greeting" {
			http.NotFound(w, r)
			return
		}
		c.served.Add(1)
		fmt.Fprint(w, c.Greeting)
	})}
	go srv.Serve(ln)
	c.mu.Lock()
	c.url = "http://" + ln.Addr().String()
	c.mu.Unlock()
	fmt.Fprintf(c.w, "suite setup: the service listens on %s\n", ln.Addr())
	return func(ctx context.Context) error {
		fmt.Fprintf(c.w, "suite cleanup: the service served %d requests and stops\n", c.served.Load())
		return srv.Shutdown(ctx)
	}, nil
}

func (c *greetingConfig) SetupCase(_ context.Context, s lux.CaseScope) (lux.Cleanup, error) {
	c.mu.Lock()
	url := c.url
	c.mu.Unlock()
	if url == "" {
		return nil, errors.New("the service runs for suites only: run the case in a suite")
	}
	return nil, os.WriteFile(filepath.Join(s.Workspace, "service.url"), []byte(url+"\n"), 0o644)
}

func example(ctx context.Context, w io.Writer, root string) (*record.Suite, error) {
	agent, err := filepath.Abs(filepath.Join(root, ".bin", "hooks-agent"))
	if err != nil {
		return nil, err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", agent, ".")
	build.Dir = filepath.Join(exsetup.SourceDir(filepath.Join("examples", "hooks")), "agent")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the example agent: %v\n%s", err, out)
	}
	reg := lux.NewRegistry()
	if err := errors.Join(reg.RegisterDriver(subprocess.Plugin()), assertion.Register(reg), reg.RegisterHook(GreetingService(w))); err != nil {
		return nil, err
	}
	o := orchestrator.New(reg, orchestrator.Options{
		RunsRoot: root, Repetitions: 2,
		DefaultDriver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": agent, "idleTimeout": "30s"}},
		Hooks:         []lux.PluginRef{{Name: "greeting-service", Config: map[string]any{"greeting": "hello from the service"}}},
		// The agent reaches the service on a port chosen at suite setup,
		// which the landlock level's TCP rules, fixed before, would refuse.
		Sandbox: sandbox.Config{Level: sandbox.LevelLimits},
	})
	c := &lux.Case{ID: "fetch-greeting", Prompt: "Ask the service for its greeting and write it to greeting.txt.",
		Assertions: []lux.AssertionSpec{{Type: "file-contains", ID: "greeting", Config: map[string]any{"path": "greeting.txt", "text": "hello from the service"}}}}
	res, err := o.RunSuite(ctx, []*lux.Case{c})
	if err != nil {
		return res, err
	}
	for _, it := range res.Manifest.Items {
		fmt.Fprintf(w, "%s #%d: %s\n", it.CaseID, it.Repetition, it.Verdict())
	}
	return res, nil
}
