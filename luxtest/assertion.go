package luxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/luxeval/lux"
)

// Verdict is what an assertion case expects of the plugin.
type Verdict string

// The verdicts an AssertionCase may want.
const (
	Pass     Verdict = "pass"     // Evaluate returns a passing result
	Fail     Verdict = "fail"     // Evaluate returns a failing result: a failed check is data
	Ungraded Verdict = "ungraded" // Evaluate returns an error: the run could not be graded
	Invalid  Verdict = "invalid"  // Parse rejects the config with lux.ErrInvalidConfig
)

// AssertionCase is one config of an assertion plugin and a run to grade
// with it.
type AssertionCase struct {
	// Name names the case in problems; default "case N" (from 1).
	Name string
	// Config is the assertion's own config: the fields of an assertion
	// spec other than id, type, name, weight and threshold. Empty means {}.
	Config json.RawMessage
	// Run is the evidence to grade (NewRun builds one); nil means a run
	// that ended done with no events and an empty workspace.
	Run *lux.Run
	// Want is the expected verdict; "" accepts any verdict (the result is
	// still checked).
	Want Verdict
}

// TestAssertion checks that plugin keeps the assertion contract on each
// case, and reports every problem with t.Error. See CheckAssertion for
// what is checked.
func TestAssertion(t testing.TB, plugin *lux.AssertionPlugin, cases ...AssertionCase) {
	t.Helper()
	checkAssertion(t.Context(), plugin, cases).report(t)
}

// CheckAssertion checks that plugin keeps the assertion contract and
// returns a *ConformanceError listing every problem, or nil. The plugin
// has a type and a version; Parse is strict (an unknown field, a config
// that is not an object and one that is not JSON are rejected with
// lux.ErrInvalidConfig) and returns a check for every valid config; each
// evaluation either fails (could not grade: the case wants Ungraded) or
// returns a score in [0,1], a detail that encodes as JSON and usage that is
// not negative; it leaves the run's evidence as it was; and the verdict is
// the one each case wants.
func CheckAssertion(ctx context.Context, plugin *lux.AssertionPlugin, cases ...AssertionCase) error {
	return checkAssertion(ctx, plugin, cases).err()
}

func checkAssertion(ctx context.Context, plugin *lux.AssertionPlugin, cases []AssertionCase) *checker {
	c, ok := pluginChecker("assertion", plugin, func(p *lux.AssertionPlugin) pluginID {
		return pluginID{name: p.Type, blank: "Type is blank; assertion specs refer to a plugin by its type", hasParse: p.Parse != nil}
	})
	if plugin != nil && strings.TrimSpace(plugin.Version) == "" {
		c.add("plugin", `Version is blank; set it ("1") and change it when the grading changes, so regrades and comparisons can tell graders apart`)
	}
	if !ok {
		return c
	}
	if len(cases) == 0 {
		c.add("input", "no cases: give at least one AssertionCase with a config and a run")
		return c
	}
	var base json.RawMessage
	var invalid []json.RawMessage
	for _, ac := range cases {
		switch {
		case ac.Want == Invalid:
			invalid = append(invalid, ac.Config)
		case base == nil:
			base = ac.Config
		}
	}
	parse := func(raw json.RawMessage) (lux.Check, error) {
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage("{}")
		}
		return plugin.Parse(raw)
	}
	c.checkStrict(base, func(raw json.RawMessage) error { _, err := parse(raw); return err }, invalid...)
	verdicts := map[Verdict]int{}
	for i, ac := range cases {
		c.scenario = ac.Name
		if c.scenario == "" {
			c.scenario = fmt.Sprintf("case %d", i+1)
		}
		if v := c.assertionCase(ctx, parse, plugin.DefaultThreshold, ac); v != "" {
			verdicts[v]++
		}
	}
	c.note("%d cases: %d pass, %d fail, %d ungraded, %d invalid", len(cases), verdicts[Pass], verdicts[Fail], verdicts[Ungraded], verdicts[Invalid])
	return c
}

// assertionCase checks one case and returns the verdict it got ("" when
// it could not tell).
//
// A verdict is the plugin's as a spec without a threshold gets it: its
// check passes and its score reaches the plugin's DefaultThreshold.
func (c *checker) assertionCase(ctx context.Context, parse func(json.RawMessage) (lux.Check, error), threshold float64, ac AssertionCase) Verdict {
	switch ac.Want {
	case "", Pass, Fail, Ungraded, Invalid:
	default:
		c.add("input", "Want %q is not pass, fail, ungraded or invalid", ac.Want)
		return ""
	}
	chk, fl, err := guard(c.timeout, func() (lux.Check, error) { return parse(ac.Config) })
	switch {
	case fl != "":
		c.add("parse", "Parse(%s) %s", ac.Config, fl)
		return ""
	case ac.Want == Invalid && err == nil:
		c.add("expect", "Parse accepted %s; want it rejected with an error wrapping lux.ErrInvalidConfig", ac.Config)
		return ""
	case ac.Want == Invalid && !errors.Is(err, lux.ErrInvalidConfig):
		c.add("parse", "Parse rejected %s, but its error does not wrap lux.ErrInvalidConfig: %v", ac.Config, err)
		return Invalid
	case ac.Want == Invalid:
		return Invalid
	case err != nil:
		c.add("parse", "Parse rejected the case's config %s: %v", ac.Config, err)
		return Invalid
	case chk == nil:
		c.add("parse", "Parse returned a nil check and no error")
		return ""
	}

	run := ac.Run
	if run == nil {
		dir, err := os.MkdirTemp("", "luxtest-assertion-")
		if err != nil {
			c.add("setup", "%v", err)
			return ""
		}
		defer os.RemoveAll(dir)
		if run, err = newRun(dir, nil); err != nil {
			c.add("setup", "%v", err)
			return ""
		}
	}
	before, err := evidenceJSON(run)
	if err != nil {
		c.add("input", "the case's run does not encode as JSON: %v", err)
		return ""
	}
	res, fl, err := guard(c.timeout, func() (lux.Result, error) { return chk.Evaluate(ctx, run) })
	if fl != "" {
		c.add("evaluate", "Evaluate %s", fl)
		return ""
	}
	if after, _ := evidenceJSON(run); !bytes.Equal(before, after) {
		c.add("evaluate", "Evaluate changed the run it graded; the evidence is read-only")
	}
	if err != nil {
		if ac.Want == Pass || ac.Want == Fail {
			c.add("expect", "Evaluate could not grade the run: %v; want %s (missing or unusable evidence is a failed check, an error means the grader itself could not work)", err, ac.Want)
		}
		return Ungraded
	}
	got := Fail
	if res.Passed && (threshold == 0 || res.Score >= threshold) {
		got = Pass
	}
	if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
		c.add("score", "Evaluate returned score %v; a score is in [0,1]", res.Score)
	}
	if _, err := json.Marshal(res.Detail); err != nil {
		c.add("detail", "the result's Detail does not encode as JSON, so it cannot be recorded in grading.json: %v", err)
	}
	if u := res.Usage; u != nil && (u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheCreation < 0 || u.Calls < 0 || u.UnpricedCalls < 0 || u.CostUSD < 0 || math.IsNaN(u.CostUSD)) {
		c.add("usage", "the result's judge usage is negative: %+v", *u)
	}
	if ac.Want != "" && ac.Want != got {
		comment := ""
		if res.Comment != "" {
			comment = fmt.Sprintf(" (%s)", res.Comment)
		}
		if ac.Want == Ungraded {
			c.add("expect", "Evaluate returned a verdict, %s%s; want an error: the run could not be graded", got, comment)
		} else {
			c.add("expect", "the verdict is %s%s; want %s", got, comment, ac.Want)
		}
	}
	return got
}

// evidenceJSON encodes what an assertion may read but not change.
func evidenceJSON(run *lux.Run) ([]byte, error) {
	return json.Marshal(struct {
		Case      *lux.Case
		Outcome   *lux.Outcome
		Events    []lux.Event
		Artifacts []lux.Artifact
		Dir       string
		Workspace string
	}{run.Case, run.Outcome, run.Events, run.Artifacts, run.Dir, run.Workspace})
}
