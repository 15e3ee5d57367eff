package temporal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// Extension is what the Temporal adapter adds to a lux command line
// (cli.MainWith): the worker command, and -executor temporal://... for
// run and experiment. reg is the registry the worker rebuilds runs with:
// the one the command line was given.
//
//	func main() {
//		reg := builtin.Registry()
//		os.Exit(cli.MainWith(context.Background(), reg, temporal.Extension(reg), os.Args[1:], os.Stdout, os.Stderr))
//	}
func Extension(reg *lux.Registry) cli.Extension {
	return cli.Extension{Commands: []cli.Command{workerCommand(reg)}, Executor: ExecutorFromURL}
}

// ExecutorFromURL returns the Executor a URL names,
// temporal://HOST:PORT/QUEUE, with optional query parameters namespace,
// heartbeat (Params.HeartbeatTimeout, "30s"), attempts (MaxAttempts) and
// idle (IdleTimeout), for runs recorded under runsRoot, and what ends its
// workflows (see Executor.Close) and closes its connection.
func ExecutorFromURL(ctx context.Context, value, runsRoot string) (orchestrator.Executor, func(), error) {
	u, err := url.Parse(value)
	if err != nil || u.Scheme != "temporal" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return nil, nil, errors.New("want temporal://HOST:PORT/QUEUE")
	}
	q := u.Query()
	var p Params
	for name, d := range map[string]*time.Duration{"heartbeat": &p.HeartbeatTimeout, "idle": &p.IdleTimeout} {
		if v := q.Get(name); v != "" {
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				return nil, nil, fmt.Errorf("%s: want a positive duration such as 30s, got %q", name, v)
			}
		}
	}
	if v := q.Get("attempts"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, nil, fmt.Errorf("attempts: want a positive number, got %q", v)
		}
		p.MaxAttempts = int32(n)
	}
	c, err := Dial(u.Host, q.Get("namespace"))
	if err != nil {
		return nil, nil, err
	}
	x := &Executor{Client: c, Queue: strings.Trim(u.Path, "/"), RunsRoot: runsRoot, Params: p}
	return x, func() { x.Close(); c.Close() }, nil
}

// Dial connects to the Temporal frontend at hostPort, in namespace
// ("" for default), logging only warnings and errors, on stderr.
func Dial(hostPort, namespace string) (client.Client, error) {
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: namespace, Logger: quietLogger()})
	if err != nil {
		return nil, fmt.Errorf("temporal: connect to %s: %w", hostPort, err)
	}
	return c, nil
}

// quietLogger logs the SDK's warnings and errors on stderr.
func quietLogger() tlog.Logger {
	return tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

func workerCommand(reg *lux.Registry) cli.Command {
	return cli.Command{
		Name:    "worker",
		Args:    "-temporal HOST:PORT -queue QUEUE -runs-root DIR [flags]",
		Summary: "execute runs that lux run|experiment -executor temporal://HOST:PORT/QUEUE hands to Temporal",
		Doc: `Serve a Temporal task queue: execute each run a suite or an experiment sends
to it (-executor temporal://HOST:PORT/QUEUE), -slots at a time, and record it
under -runs-root, the directory the client reads (shared by every machine, at
the same path). This binary must register the plugins the client does: a run
whose identity it computes differently is refused. The agents run here: their
commands, and the cases' files and fixtures, must be at the paths the client
planned with. Ctrl-C stops the worker at once: its runs in progress are
stopped and run again on another worker once their heartbeats lapse
(which keeps the partial directories they leave under the runs' attempts/);
-drain lets them finish first, up to the time it gives.`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
			hostPort := fs.String("temporal", "127.0.0.1:7233", "the Temporal frontend, HOST:PORT")
			namespace := fs.String("namespace", "", "the Temporal namespace (default: default)")
			queue := fs.String("queue", "", "the task queue to serve (required)")
			root := fs.String("runs-root", record.DefaultRoot, "the shared directory runs are recorded under")
			slots := fs.Int("slots", 1, "how many runs execute at once")
			fsync := fs.Bool("fsync", false, "make every record file durable across a power loss")
			drain := fs.Duration("drain", 0, "on Ctrl-C, how long the runs in progress may go on to finish before they are stopped")
			return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
				if len(args) > 0 || *queue == "" || *slots < 1 {
					fmt.Fprintln(stderr, "lux: worker: give -queue, and -slots at least 1, and no arguments (run 'lux worker -h')")
					return cli.ExitUsage
				}
				return serve(ctx, reg, *hostPort, *namespace, *queue, *root, *slots, *drain, *fsync, stdout, stderr)
			}
		},
	}
}

func serve(ctx context.Context, reg *lux.Registry, hostPort, namespace, queue, root string, slots int, drain time.Duration, fsync bool, stdout, stderr io.Writer) int {
	store := SharedDir(root)
	if err := record.CheckRoot(store.Root()); err != nil {
		fmt.Fprintf(stderr, "lux: worker: %v\n", err)
		return cli.ExitUsage
	}
	c, err := Dial(hostPort, namespace)
	if err != nil {
		fmt.Fprintf(stderr, "lux: worker: %v\n", err)
		return cli.ExitUsage
	}
	defer c.Close()
	host, _ := os.Hostname()
	var mu sync.Mutex
	progress := func(u orchestrator.Update) { // one line per run that ends
		if u.Kind != orchestrator.RunFinished {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		rel, err := filepath.Rel(store.Root(), u.RunDir)
		if err != nil {
			rel = u.RunDir
		}
		fmt.Fprintf(stdout, "%s %s #%d: %s (%s) %s\n", time.Now().UTC().Format(time.RFC3339), u.CaseID, u.Repetition, u.Verdict, u.ExitReason, rel)
	}
	a := &Activities{Registry: reg, Store: store, Options: orchestrator.Options{Fsync: fsync, Progress: progress},
		Identity: fmt.Sprintf("%d@%s", os.Getpid(), host)}
	w := worker.New(c, queue, worker.Options{MaxConcurrentActivityExecutionSize: slots, WorkerStopTimeout: drain})
	Register(w, a)
	if err := w.Start(); err != nil {
		fmt.Fprintf(stderr, "lux: worker: %v\n", err)
		return cli.ExitUsage
	}
	fmt.Fprintf(stdout, "lux worker %s: serving queue %s on %s with %d slots, recording under %s\n", a.Identity, queue, hostPort, slots, store.Root())
	<-ctx.Done()
	w.Stop()
	return cli.ExitOK
}
