// Command lux-temporal is the lux command line with the Temporal
// adapter: lux's commands, the worker command, and -executor
// temporal://HOST:PORT/QUEUE for run and experiment (see
// docs/running-on-many-machines.md). A harness with plugins of its own
// builds its own the same way, with its registry.
package main

import (
	"context"
	"os"

	"github.com/luxeval/lux/builtin"
	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/temporal"
)

func main() {
	reg := builtin.Registry()
	os.Exit(cli.MainWith(context.Background(), reg, temporal.Extension(reg), os.Args[1:], os.Stdout, os.Stderr))
}
