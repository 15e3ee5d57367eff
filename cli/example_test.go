package cli_test

import (
	"context"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/cli"
)

// A harness binary with its own plugins is a registry and one call; here
// it prints the commands it offers.
func ExampleMain() {
	reg := lux.NewRegistry() // register the built-ins and your own plugins here
	code := cli.Main(context.Background(), reg, []string{"help"}, os.Stdout, os.Stderr)
	_ = code
	// Output:
	// lux evaluates coding agents.
	//
	// Usage: lux <command> [flags] [arguments]
	//
	// Commands:
	//   init        scaffold a project that runs at once: lux.json, an example agent, cases, fixtures
	//   run         run cases (files or directories of *.case.json) as a suite and record every run
	//   validate    check cases against the registry without running anything
	//   doctor      check that the commands the cases' drivers launch are installed
	//   plugins     list the drivers, answerers and assertion types this binary has, with what each does
	//   view        list recorded runs and suites, or show one run or suite
	//   compare     compare two runs or two suites; exit status 1 on a regression
	//   grade       grade a recorded run again with the current assertions; the new grading goes beside the old one
	//   annotate    record a person's verdict on a recorded run in a label dataset
	//   experiment  run a controlled experiment to a decision: promote a variant, retain the baseline, or reject
	//   optimize    search for a better subject with an optimizer, then promote only what holds up on held-out cases
	//   report      report an experiment (Markdown, JSON), or write an HTML page of a suite, run, comparison or experiment
	//   apply       write an experiment's champion into the subject
	//   modeltest   serve a scripted model on 127.0.0.1, to run the real agent CLIs offline
	//
	// Run 'lux help <command>' or 'lux <command> -h' for a command's description and flags,
	// 'lux --version' for the version.
}
