// Command lux runs coding-agent evaluations from the command line with the
// built-in plugins. To add your own plugins, build your own copy of this
// program around package cli (see its documentation).
package main

import (
	"context"
	"os"

	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), builtin.Registry(), os.Args[1:], os.Stdout, os.Stderr))
}
