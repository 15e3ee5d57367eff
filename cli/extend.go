package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/orchestrator"
)

// Extension is what a custom build adds to the command line, given to
// MainWith: commands of its own, and executors that run and experiment
// hand their runs to with -executor. The lux module's own binary adds
// none; the Temporal adapter's (github.com/luxeval/lux/temporal) adds a
// worker command and temporal:// executors.
type Extension struct {
	// Commands are more commands, listed by lux help after the built-in
	// ones.
	Commands []Command
	// Executor returns the executor an -executor value names (any value
	// but "local", which runs here), for runs recorded under runsRoot,
	// and what closes it once the command is done.
	Executor func(ctx context.Context, value, runsRoot string) (orchestrator.Executor, func(), error)
}

// Command is a command a custom build adds (see Extension).
type Command struct {
	Name    string
	Args    string // the synopsis of the arguments after the flags
	Summary string // one line, listed by lux help
	Doc     string // paragraphs printed above the flags by lux help NAME
	// Setup registers the command's flags on fs and returns what runs
	// once they are parsed, with the remaining arguments; it returns the
	// exit status.
	Setup func(fs *flag.FlagSet) func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func (x Extension) commands() []command {
	out := make([]command, len(x.Commands))
	for i, c := range x.Commands {
		out[i] = command{name: c.Name, args: c.Args, summary: c.Summary, doc: c.Doc, setup: func(fs *flag.FlagSet) action {
			run := c.Setup(fs)
			return func(ctx context.Context, e *env, args []string) int { return run(ctx, args, e.stdout, e.stderr) }
		}}
	}
	return out
}

// executorFlag registers -executor on fs.
func executorFlag(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "executor", "local", "where the runs execute: local (here), or what this binary's build adds, "+
		"such as temporal://HOST:PORT/QUEUE (see docs/running-on-many-machines.md)")
}

// executor returns the executor value names (nil for local), for runs
// recorded under runsRoot, and what closes it.
func (e *env) executor(ctx context.Context, value, runsRoot string) (orchestrator.Executor, func(), error) {
	value = strings.TrimSpace(value)
	if value == "" || value == "local" {
		return nil, func() {}, nil
	}
	if e.ext.Executor == nil {
		return nil, nil, fmt.Errorf("-executor %s: this lux binary runs only locally; build one with cli.MainWith and an executor (docs/running-on-many-machines.md)", value)
	}
	if abs, err := filepath.Abs(runsRoot); err == nil {
		runsRoot = abs
	}
	x, closeFn, err := e.ext.Executor(ctx, value, runsRoot)
	if err != nil {
		return nil, nil, fmt.Errorf("-executor %s: %w", value, err)
	}
	if closeFn == nil {
		closeFn = func() {}
	}
	return x, closeFn, nil
}
