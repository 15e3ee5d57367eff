// Package cli is the lux command line as a library, so that a harness
// binary with its own plugins is a few lines:
//
//	func main() {
//		reg := builtin.Registry()
//		_ = reg.RegisterDriver(mydriver.Plugin())
//		os.Exit(cli.Main(context.Background(), reg, os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// Commands: init (scaffold a project that runs at once), run (run cases
// as a suite), validate (check cases without
// running them), doctor (check that the agents' commands are installed),
// plugins (list the registered drivers, answerers and assertion types),
// view (list runs and suites, or show one; -serve serves them as HTML
// pages on 127.0.0.1), compare (compare two runs or two suites; exit
// status 1 on a regression), experiment, report (an experiment's report;
// with -html, one self-contained HTML page of a suite, a run, a comparison
// or an experiment) and apply. `lux help` lists them;
// `lux help <command>` and `lux <command> -h` print a command's description
// and its own flags on stdout. `lux --version` prints the version. Commands
// that print results take -json (see docs/cli.md for the schemas).
//
// Exit status: 0 on success, 1 when a case did not pass or a comparison
// found a regression, 2 on a usage or input error, 130 when interrupted.
//
// Main owns the process it runs in. Unless GOGC or GOMEMLIMIT is set in
// the environment, it runs the garbage collector at GOGC=75 while the live
// heap is under 2 MiB (a heap floor of 3 MiB instead of the runtime's
// 4 MiB: a suite's live heap is about a MiB), and at the default from
// there up. On Linux, the commands that run suites (run, experiment,
// optimize) drop the process's mappings of its executable's code and
// read-only data before they start: the packages' initialisation touches
// nearly all of it, a command's own work a part, and the pages stay in the
// page cache to be mapped again on their next use.
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
	"sync"
	"syscall"

	"github.com/luxeval/lux/internal/footprint"

	"github.com/luxeval/lux"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailed      = 1 // a case did not pass; a comparison found a regression
	ExitUsage       = 2 // bad flags, unreadable or invalid input
	ExitInterrupted = 130
)

// env is what a command runs with.
type env struct {
	reg    *lux.Registry
	stdout io.Writer
	stderr io.Writer
	ext    Extension // what a custom build added (see MainWith)
}

func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "lux: "+format+"\n", args...)
}

// commands lists the subcommands in the order `lux help` shows them. Each
// is declared in its own file.
func commands() []command {
	return []command{
		initCommand(),
		runCommand(),
		validateCommand(),
		doctorCommand(),
		pluginsCommand(),
		viewCommand(),
		compareCommand(),
		gradeCommand(),
		annotateCommand(),
		experimentCommand(),
		optimizeCommand(),
		reportCommand(),
		applyCommand(),
		modeltestCommand(),
	}
}

func lookup(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// startupOver is called first by the commands that run suites (run,
// experiment, optimize): once per process, it drops the process's mappings
// of its executable's code and read-only data, which the packages'
// initialisation touched nearly all of, so that the resident set holds
// what the command goes on to execute (see footprint.ReleaseStartupPages).
var startupOver = sync.OnceFunc(func() { _, _ = footprint.ReleaseStartupPages() })

// Main runs the command line with args (without the program name) and
// returns the exit status. SIGINT and SIGTERM cancel ctx's work: runs in
// flight stop and are still recorded.
func Main(ctx context.Context, reg *lux.Registry, args []string, stdout, stderr io.Writer) int {
	return MainWith(ctx, reg, Extension{}, args, stdout, stderr)
}

// MainWith is Main with what a custom build adds: more commands, and
// the executors -executor names (see Extension).
func MainWith(ctx context.Context, reg *lux.Registry, ext Extension, args []string, stdout, stderr io.Writer) int {
	footprint.LowerHeapFloor()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{reg: reg, stdout: stdout, stderr: stderr, ext: ext}
	cmds := append(commands(), ext.commands()...)
	if len(args) == 0 {
		usage(e.stderr, cmds)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(e.stdout, cmds)
		return ExitOK
	case "-version", "--version", "version":
		fmt.Fprintf(e.stdout, "lux %s\n", lux.Version)
		return ExitOK
	case "help":
		if len(args) == 1 {
			usage(e.stdout, cmds)
			return ExitOK
		}
		c, ok := lookup(cmds, args[1])
		if !ok || len(args) > 2 {
			e.errorf("help: unknown command %q (commands: %s)", strings.Join(args[1:], " "), strings.Join(commandNames(cmds), ", "))
			return ExitUsage
		}
		c.writeHelp(e.stdout)
		return ExitOK
	}
	c, ok := lookup(cmds, args[0])
	if !ok {
		e.errorf("unknown command %q (commands: %s; run 'lux help')", args[0], strings.Join(commandNames(cmds), ", "))
		return ExitUsage
	}
	code := c.exec(ctx, e, args[1:])
	if code != ExitOK && ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return ExitInterrupted
	}
	return code
}

func commandNames(cmds []command) []string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "lux evaluates coding agents.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: lux <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'lux help <command>' or 'lux <command> -h' for a command's description and flags,")
	fmt.Fprintln(w, "'lux --version' for the version.")
}
