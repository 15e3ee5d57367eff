// Package cli is the lux command line as a library, so that a harness
// binary with its own plugins is a few lines:
//
//	func main() {
//		reg := builtin.Registry()
//		_ = reg.RegisterDriver(mydriver.Plugin())
//		os.Exit(cli.Main(context.Background(), reg, os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// Commands: run (run cases as a suite), validate (check cases without
// running them), doctor (check that the agents' commands are installed),
// view (list runs and suites, or show one), compare (compare two runs or
// two suites; exit status 1 on a regression). `lux help` lists them and
// `lux <command> -h` shows a command's flags.
//
// Exit status: 0 on success, 1 when a case did not pass or a comparison
// found a regression, 2 on a usage or input error, 130 when interrupted.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/luxeval/lux"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailed      = 1 // a case did not pass; a comparison found a regression
	ExitUsage       = 2 // bad flags, unreadable or invalid input
	ExitInterrupted = 130
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) int
}

// env is what a command runs with.
type env struct {
	reg    *lux.Registry
	stdout io.Writer
	stderr io.Writer
}

func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "lux: "+format+"\n", args...)
}

func commands() []command {
	return []command{
		{"run", "run cases (files or directories of *.case.json) as a suite and record every run", runCmd},
		{"validate", "check cases against the registry without running anything", validateCmd},
		{"doctor", "check that the commands the cases' drivers launch are installed", doctorCmd},
		{"view", "list recorded runs and suites, or show one run or suite", viewCmd},
		{"compare", "compare two runs or two suites; exit status 1 on a regression", compareCmd},
	}
}

// Main runs the command line with args (without the program name) and
// returns the exit status. SIGINT and SIGTERM cancel ctx's work: runs in
// flight stop and are still recorded.
func Main(ctx context.Context, reg *lux.Registry, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{reg: reg, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			code := c.run(ctx, e, args[1:])
			if code != ExitOK && ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
				return ExitInterrupted
			}
			return code
		}
	}
	e.errorf("unknown command %q (commands: %s)", args[0], strings.Join(commandNames(), ", "))
	return ExitUsage
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "lux evaluates coding agents.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: lux <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'lux <command> -h' for a command's flags.")
}
