package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A command is one subcommand of lux. Every command is declared the same
// way: its help text, and a setup that registers its own flags (and only
// those: `lux help NAME` and `lux NAME -h` list them) and returns what runs
// once they are parsed. Main parses the flags, answers -h and reports flag
// errors, so a command never does.
type command struct {
	name    string
	args    string // the synopsis of the arguments after the flags, e.g. "[flags] A B"
	summary string // one line, listed by `lux help`
	doc     string // paragraphs printed above the flags by `lux help NAME`
	setup   func(fs *flag.FlagSet) action
}

// action runs a command with its flags parsed and the remaining arguments.
type action func(ctx context.Context, e *env, args []string) int

// newFlagSet returns the command's flag set with its flags registered, and
// its action.
func (c command) newFlagSet() (*flag.FlagSet, action) {
	fs := flag.NewFlagSet("lux "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // Main reports errors and prints help itself
	fs.Usage = func() {}
	run := c.setup(fs)
	return fs, run
}

// exec parses args and runs the command.
func (c command) exec(ctx context.Context, e *env, args []string) int {
	fs, run := c.newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.writeHelp(e.stdout)
			return ExitOK
		}
		e.errorf("%s: %v (run 'lux %s -h' for its flags)", c.name, err, c.name)
		return ExitUsage
	}
	return run(ctx, e, fs.Args())
}

// writeHelp prints the command's usage line, description and own flags.
func (c command) writeHelp(w io.Writer) {
	fs, _ := c.newFlagSet()
	fmt.Fprintf(w, "Usage: lux %s %s\n\n", c.name, c.args)
	doc := c.doc
	if doc == "" {
		doc = c.summary
	}
	fmt.Fprintln(w, strings.TrimSpace(doc))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// usageError reports a wrong argument list and points at the command's
// help.
func (e *env) usageError(cmd, format string, args ...any) int {
	e.errorf("%s: %s (run 'lux %s -h' for its usage)", cmd, fmt.Sprintf(format, args...), cmd)
	return ExitUsage
}

// jsonFlag registers -json on fs; what is printed is the value of the type
// named in the help (see "Machine-readable output" in docs/cli.md).
func jsonFlag(fs *flag.FlagSet, what string) *bool {
	return fs.Bool("json", false, "print "+what+" as one JSON document on stdout instead of text")
}

// writeJSON prints v as indented JSON on stdout. Every document a command
// prints carries a "schema" field naming its shape and version.
func (e *env) writeJSON(v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		e.errorf("encoding the output: %v", err)
		return ExitUsage
	}
	return ExitOK
}
