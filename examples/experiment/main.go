// Command experiment runs a controlled experiment against echoagent, the
// example agent, with no model and no API key:
//
//	go run ./examples/experiment
//
// The subject is project/subject/AGENTS.md, the instructions file the agent
// follows before every task. As it is, it tells the agent to indent with
// spaces, so the cases that check the house style (tabs) fail. The
// campaign (project/house-style.experiment.json) tries two variants:
// variant-x fixes the instructions, variant-y makes them impossible to
// follow. The experiment runs every candidate on every case, computes the
// paired effect of each variant on the pass rate, promotes variant-x and
// rejects variant-y, and prints where its report is. Apply the champion
// with `go run ./cmd/lux apply LEDGER` (it rewrites project/subject/AGENTS.md).
//
// With -sequential it runs project/house-style-sequential.experiment.json
// instead: the same candidates, in rounds (one run of every case each),
// with a sequential sign test per variant that stops it as soon as it is
// decided — variant-x promoted, variant-y given up as futile — and prints
// each test's e-value and confidence sequence by round and how many of the
// campaign's worst-case runs it saved:
//
//	go run ./examples/experiment -sequential
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/examples/internal/exsetup"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/record"
)

func main() {
	root := flag.String("runs", record.DefaultRoot, "directory the run records and the ledger go to")
	quiet := flag.Bool("q", false, "no progress lines")
	sequential := flag.Bool("sequential", false, "run the sequential campaign: stop each variant once decided, and say how many runs that saved")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *root, *quiet, *sequential); err != nil {
		fmt.Fprintln(os.Stderr, "experiment:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, root string, quiet, sequential bool) error {
	src := exsetup.SourceDir(filepath.Join("examples", "experiment"))
	agent, err := exsetup.BuildEchoAgent(ctx, filepath.Join(root, ".bin"))
	if err != nil {
		return err
	}
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		return err
	}
	if err := assertion.Register(reg); err != nil {
		return err
	}
	file := "house-style.experiment.json"
	if sequential {
		file = "house-style-sequential.experiment.json"
	}
	c, err := experiment.Load(filepath.Join(src, "project", file))
	if err != nil {
		return err
	}
	// The campaign names the agent "echoagent"; run the one just built.
	p := c.Profiles["echoagent"]
	p.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{
		"command": agent, "env": map[string]string{"ECHOAGENT_INSTRUCTIONS": "{{lux.subjectRoot}}/AGENTS.md"},
	}}
	c.Profiles["echoagent"] = p

	opts := experiment.Options{RunsRoot: root, Concurrency: 2}
	if !quiet {
		opts.Progress = func(p experiment.Progress) {
			if p.Round != nil {
				fmt.Fprintln(os.Stderr, experiment.RoundLine(p.Round))
			}
			if p.Finished {
				fmt.Fprintf(os.Stderr, "unit %d of %d: %s %s\n", p.Done, p.Total, p.Candidate, p.CaseID)
			}
		}
	}
	res, err := experiment.Run(ctx, reg, c, opts)
	if err != nil {
		return err
	}
	for _, v := range res.Verdicts() {
		fmt.Fprintln(w, v)
	}
	for _, l := range experiment.SequentialLines(res.Decision.Gates) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "report: go run ./cmd/lux report '%s'\n", res.Dir)
	fmt.Fprintf(w, "apply:  go run ./cmd/lux apply '%s'\n", res.Dir)
	return nil
}
