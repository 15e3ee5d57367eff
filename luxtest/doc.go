// Package luxtest connects lux to go test: it runs cases as subtests, and
// it checks that driver, answerer and assertion plugins keep their
// contracts, in the spirit of testing/fstest and testing/slogtest.
//
// # Cases as tests
//
// Suite.Run (or Run, with an Orchestrator of your own) runs each case as a
// subtest named by its canonical id:
//
//	func TestEvals(t *testing.T) {
//		luxtest.Suite{
//			Registry: builtin.Registry(),
//			Options:  orchestrator.Options{DefaultDriver: &lux.PluginRef{Name: "claude-code"}, Repetitions: 3},
//		}.Run(t, luxtest.LoadCases(t, "testdata/evals")...)
//	}
//
// so that go test -run 'TestEvals/login' runs the case "login" alone (ids
// with slashes nest: "api/login" is TestEvals/api/login). The cases a Run
// selects run together as one suite, recorded as `lux run` records one
// (one suite directory under the runs root, every case and repetition in
// it), so that a go test run can be viewed, reported and compared like
// any suite. A subtest runs its case Options.Repetitions times and passes
// when every run passes, or the share Suite.MinPassRate asks for.
// A run passes when it ended done and every assertion passed. A run that
// could not be graded (an assertion returned an error) does not pass: no
// verdict is never a silent pass. Neither does a case without assertions,
// which has no verdict either; give it run-succeeded to require only that
// the agent finishes. The failure message lists, run by run, every assertion
// that failed with its comment, every one that could not grade with its
// error, the exit reason and reason when the run did not end done (with the
// tail of the agent's stderr), and the run directory to inspect.
//
// Records go to a fresh temporary directory, removed when the test passes
// and kept when it fails (the test log says where), unless
// Options.RunsRoot (or LUX_RUNS_ROOT) names a directory, or Suite.KeepRuns
// (or LUX_KEEP_RUNS=1) asks to keep them. A t.TempDir would vanish with
// the test and take the evidence of a failure with it.
//
// # A baseline and a gate
//
// Suite.Label (or LUX_LABEL) names the suite; Suite.Baseline (or
// LUX_BASELINE) names a suite to gate on: a directory, "latest" or
// "label:NAME", found under the runs root. The two suites are compared as
// `lux compare BASELINE NEW` compares them (compare.Suites, with
// Suite.Compare: default options unless set), and a gate that fails fails
// the test calling Run with the comparison's text: which rule failed, on
// which case, on what test. A change is meant to change something the
// runs' identity holds (the commit of the case files, "source"; the
// agent's command, "runtime"; its config, "driverConfigHash"): name it in
// Suite.Compare.Vary or LUX_VARY (comma-separated), as lux compare -vary
// does, or the suites are not comparable and the gate fails saying so.
// The recipe for CI: on the main branch,
//
//	LUX_RUNS_ROOT=$PWD/.lux-runs LUX_LABEL=main go test ./evals
//
// and keep .lux-runs (a cache or an artifact); on a pull request, with the
// same runs root,
//
//	LUX_RUNS_ROOT=$PWD/.lux-runs LUX_LABEL=pr LUX_BASELINE=label:main LUX_VARY=source go test ./evals
//
// Under go test -short, cases tagged "slow" (SlowTag; see
// Suite.ShortSkipTags) are skipped. The subtests are parallel subtests:
// each is selected and validated, the suite runs when every case is known,
// under the context of the test calling Run, and the subtests report when
// that test's function returns. Suite.Parallel lets the runs of different
// cases overlap.
//
// LoadCases reads a directory of *.case.json files the way the lux command
// does. NewRun builds the evidence of a run for testing assertions.
//
// # Conformance suites
//
// A plugin author checks a plugin in one line:
//
//	func TestConformance(t *testing.T) {
//		luxtest.TestDriver(t, mydriver.Plugin(), luxtest.DriverScenario{
//			Config: json.RawMessage(`{"command": "my-agent"}`), Prompt: "write hello.txt", WantExit: lux.ExitDone,
//		})
//		luxtest.TestAnswerer(t, myanswerer.Plugin(), cfg, lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which database?"})
//		luxtest.TestAssertion(t, myassertion.Plugin(), luxtest.AssertionCase{Config: cfg, Run: run, Want: luxtest.Pass})
//	}
//
// Each Test function reports every problem with t.Error; the matching Check
// function (CheckDriver, CheckAnswerer, CheckAssertion) returns them as a
// *ConformanceError instead. A driver's behaviour depends on its agent, so
// the caller gives scenarios: a config and a prompt that make the agent do
// something (finish, ask, fail), how to answer it, and optionally what it
// must do. Whatever the agent does is held to the contract every driver
// keeps. Each Problem names the check that found it:
//
// For every kind of plugin:
//
//	plugin               Name (or Type) and Parse are set; an assertion has a Version
//	parse-unknown-field  Parse rejects a config with an unknown field (UnknownField),
//	                     with an error wrapping lux.ErrInvalidConfig that holds a
//	                     *lux.FieldError at it of Kind lux.ErrUnknownField; and the
//	                     field hides nothing: {} and each Invalid case's config keep
//	                     every problem they have once it is added
//	parse-invalid        Parse rejects a config that is not an object, or not JSON,
//	                     with lux.ErrInvalidConfig
//	parse                Parse accepts the config given, and returns a value
//	config-json          a parsed driver or answerer config encodes as JSON (its hash is
//	                     in every run's provenance), says something when the raw config
//	                     does, and encodes the same way when parsed again
//	input, setup         the scenarios or cases given are unusable; the check could not
//	                     prepare its temporary files
//	cancelled            the context given was cancelled before the checks were done
//
// For drivers (each scenario runs Parse, Runtime, Start, Next until the
// terminal event, Quiesce twice, Collect and Close):
//
//	runtime         Runtime is stable, no blank command (an in-process driver declares none), no blank or repeated capability
//	experiment      experiment support has a Version, Prepare and Identity; Prepare leaves
//	                its input alone and is idempotent; Identity encodes as JSON, stably
//	start           Start succeeds
//	next-cancelled  Next with a cancelled context returns ctx.Err(), and the session goes on
//	next            Next returns events until the terminal one, within the scenario's Timeout
//	event           every event is well formed: exactly the field matching its type is set,
//	                interrupts have a kind and an id, no responded or lifecycle events
//	order           only progress before ready (or an error for an agent that never got
//	                ready), one ready
//	capability      only interrupts of declared capabilities (an ask needs "ask", ...)
//	respond         Respond accepts the answer to each interrupt
//	continue        after an answer the session goes on: events follow, and the run does
//	                not end idle-timeout
//	terminal        exactly one terminal event, done or error, before io.EOF
//	eof             io.EOF, at once, after the terminal event, and again after that
//	quiesce         Quiesce succeeds, twice
//	collect         artifacts are regular files inside the workspace with true sizes and
//	                hashes, never reached through a symlink (the check plants symlinks
//	                out of the workspace), and include a file staged before the start
//	close           Close succeeds
//	expect          the scenario's WantExit, WantInterrupts, WantArtifacts and Check hold
//
// For answerers:
//
//	prepare  Prepare returns an answerer
//	answer   each interrupt gets an answer of its kind and id that encodes as JSON,
//	         without the history given being changed
//	usage    Usage is never negative and never decreases
//	close    Close succeeds
//
// For assertions (each case parses its config and evaluates its run):
//
//	evaluate  Evaluate returns, without panicking, and leaves the run unchanged
//	score     the score is in [0,1]
//	detail    the detail encodes as JSON (it goes to grading.json)
//	usage     judge usage is not negative
//	expect    the verdict is the case's Want: Pass, Fail (a failed check is data),
//	          Ungraded (an error: the grader could not work) or Invalid (Parse rejects it)
//
// Every call into a plugin is bounded (DefaultTimeout, or
// DriverScenario.Timeout) and guarded against panics, by the guard the
// orchestrator uses: a call that hangs is reported and abandoned, so a
// broken plugin fails the test rather than hanging it. Next and Respond
// are given a context that ends at the timeout, and count as hung only
// when they have not returned a tenth of the timeout (at least five
// seconds) after it ended; every other call counts as hung when it has not
// returned within the timeout.
package luxtest
