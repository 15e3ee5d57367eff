package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/report"
)

// serveRecords serves the records under root on addr, a loopback address,
// until ctx ends.
func serveRecords(ctx context.Context, e *env, root, addr string, labels *report.LabelSet) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return e.usageError("view", "-addr %q: %v (give host:port, such as 127.0.0.1:7878)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return e.usageError("view", "-addr %q is not a loopback address: the records hold prompts, outputs and provenance, so they are served on 127.0.0.1 or [::1] only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		e.errorf("view: listen on %s: %v (is another server using the port? -addr 127.0.0.1:0 picks a free one)", addr, err)
		return ExitUsage
	}
	ledgers := &report.Ledgers{
		List: experiment.List,
		Page: func(ctx context.Context, dir string) (*report.ExperimentPage, error) {
			rep, err := experiment.BuildReport(ctx, dir)
			if err != nil {
				return nil, err
			}
			return experimentPage(rep), nil
		},
	}
	srv := &http.Server{Handler: report.Handler(root, report.Options{Ledgers: ledgers, Labels: labels}), ReadHeaderTimeout: 10 * time.Second,
		// Requests end with the command: a live page's pending question
		// (report's /changes waits up to 25 s) does not hold up the stop.
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(e.stdout, "serving the records under %s at http://%s/ (interrupt to stop)\n", root, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		e.errorf("view: serve: %v", err)
		return ExitUsage
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		e.errorf("view: stop serving: %v", err)
	}
	return ExitOK
}
