package luxtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/internal/safecall"
)

// Problem is one way a plugin departs from its contract, as found by
// CheckDriver, CheckAnswerer or CheckAssertion.
type Problem struct {
	// Check names the check that found it (see the package documentation
	// for the list), so tests can tell problems apart.
	Check string
	// Scenario is the driver scenario or assertion case it showed in; ""
	// for a problem of the plugin as a whole.
	Scenario string
	Message  string
}

func (p Problem) String() string {
	if p.Scenario != "" {
		return fmt.Sprintf("[%s] %s: %s", p.Scenario, p.Check, p.Message)
	}
	return p.Check + ": " + p.Message
}

// ConformanceError is the error the Check functions return: every problem
// they found with one plugin, in the order they found them.
type ConformanceError struct {
	Plugin   string // such as `driver "subprocess"`
	Problems []Problem
}

func (e *ConformanceError) Error() string {
	var b strings.Builder
	n := len(e.Problems)
	fmt.Fprintf(&b, "luxtest: %s does not conform (%d problem", e.Plugin, n)
	if n != 1 {
		b.WriteString("s")
	}
	b.WriteString("):")
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(p.String())
	}
	return b.String()
}

// ProblemsOf returns the problems err carries: those of a
// *ConformanceError, or none.
func ProblemsOf(err error) []Problem {
	var ce *ConformanceError
	if errors.As(err, &ce) {
		return ce.Problems
	}
	return nil
}

// checker collects the problems of one plugin.
type checker struct {
	plugin   string
	scenario string // the scenario being checked; "" for the plugin
	problems []Problem
	notes    []string // what happened, for the test log
	timeout  time.Duration
}

func newChecker(plugin string) *checker {
	return &checker{plugin: plugin, timeout: DefaultTimeout}
}

// pluginID is what pluginChecker needs to know of a plugin.
type pluginID struct {
	name     string // what cases know it by: its Name, or an assertion's Type
	blank    string // the problem of a blank name
	hasParse bool
}

// pluginChecker returns the checker of plugin, a plugin of kind ("driver",
// "answerer" or "assertion") that id describes, with the problems of a
// nil plugin, a blank name or a nil Parse; ok is false when no further
// check is possible (the plugin is nil or has no Parse).
func pluginChecker[P any](kind string, plugin *P, id func(*P) pluginID) (c *checker, ok bool) {
	if plugin == nil {
		c = newChecker(kind + " <nil>")
		c.add("plugin", "the plugin is nil")
		return c, false
	}
	pid := id(plugin)
	c = newChecker(fmt.Sprintf("%s %q", kind, pid.name))
	if strings.TrimSpace(pid.name) == "" {
		c.add("plugin", "%s", pid.blank)
	}
	if !pid.hasParse {
		c.add("plugin", "Parse is nil")
	}
	return c, pid.hasParse
}

// note records what happened, for the test log.
func (c *checker) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// add records a problem found by check.
func (c *checker) add(check, format string, args ...any) {
	c.problems = append(c.problems, Problem{Check: check, Scenario: c.scenario, Message: fmt.Sprintf(format, args...)})
}

// err returns the problems as an error, or nil.
func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &ConformanceError{Plugin: c.plugin, Problems: c.problems}
}

// DefaultTimeout bounds each call a conformance check makes into a plugin
// when nothing else is said (see DriverScenario.Timeout). It is a safety
// net, never a measure: a call that takes longer is reported as hung and
// abandoned.
const DefaultTimeout = time.Minute

// fault is why a guarded call did not complete: it panicked or hung.
type fault string

// guard calls f, allowing it d from its start (safecall.Within): a call
// into a plugin that takes no context, or whose context is the check's
// own. A panic is recovered and reported as the fault; so is a call still
// running after d, which is abandoned (its goroutine is left to finish on
// its own).
func guard[T any](d time.Duration, f func() (T, error)) (T, fault, error) {
	watch, cancel := safecall.Within(d)
	defer cancel()
	return guarded(watch, f)
}

// guardErr is guard for a function returning only an error.
func guardErr(d time.Duration, f func() error) (fault, error) {
	_, fl, err := guard(d, func() (struct{}, error) { return struct{}{}, f() })
	return fl, err
}

// guardAfter calls f, a call given ctx, until it returns or margin after
// ctx is done (safecall.After): a call that honours its context's end is
// reported as what it returned, never as hung.
func guardAfter[T any](ctx context.Context, margin time.Duration, f func() (T, error)) (T, fault, error) {
	watch, cancel := safecall.After(ctx, margin)
	defer cancel()
	return guarded(watch, f)
}

func guarded[T any](watch context.Context, f func() (T, error)) (T, fault, error) {
	v, err := safecall.Call(watch, "", f)
	switch e := err.(type) {
	case *safecall.PanicError:
		return v, fault(fmt.Sprintf("panicked: %v", e.Value)), nil
	case *safecall.AbandonedError:
		return v, fault(e.Cause.Error()), nil
	}
	return v, "", err
}

// report logs c's notes and reports each of its problems with t.Error.
func (c *checker) report(t testing.TB) {
	t.Helper()
	for _, n := range c.notes {
		t.Logf("luxtest: %s: %s", c.plugin, n)
	}
	for _, p := range c.problems {
		t.Errorf("luxtest: %s: %s", c.plugin, p)
	}
}
