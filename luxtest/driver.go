package luxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
)

// DriverScenario is one run of an agent through the driver under test: the
// config and prompt that make the agent do something (finish, ask a
// question, fail), how to answer it, and optionally what it should have
// done. Whatever happens, the run is held to the contract every driver
// keeps; the Want fields add what this agent should do on top.
type DriverScenario struct {
	// Name names the scenario in problems; default "scenario N" (from 1).
	Name string
	// Config is the driver config, as a case would give it.
	Config json.RawMessage
	// Prompt is what the agent is asked to do.
	Prompt string
	// Setup, when set, prepares the workspace before the agent starts,
	// as fixtures would.
	Setup func(workspace string) error
	// Answer answers each interrupt the agent raises; nil means
	// DefaultAnswer.
	Answer func(lux.Interrupt) lux.Answer
	// Timeout bounds each call into the driver (Next waiting for an
	// event included); default DefaultTimeout. It is a safety net: a call
	// that takes longer is reported and abandoned. Next and Respond get a
	// context that ends at Timeout, and are abandoned only when they have
	// not returned a tenth of Timeout (at least five seconds) after it.
	Timeout time.Duration

	// WantExit, when set, is the exit reason the run must end with: done,
	// or the ExitReason of its error event.
	WantExit lux.ExitReason
	// WantInterrupts, when set, are the kinds of the interrupts the agent
	// must raise, in order.
	WantInterrupts []lux.InterruptKind
	// WantArtifacts are paths (slash-separated, relative to the workspace)
	// Collect must return.
	WantArtifacts []string
	// Check, when set, inspects what happened (that an answer reached the
	// agent, say) and returns an error saying what is wrong.
	Check func(Outcome) error
}

// Outcome is what one scenario's session did, for DriverScenario.Check.
type Outcome struct {
	Workspace string
	RunDir    string
	Events    []lux.Event // every event Next returned, in order
	Artifacts []lux.Artifact
	Stderr    string // what the agent wrote to StartInfo.Stderr
}

// ExitReason is the exit reason of the run's terminal event: done, the
// error event's reason (error when it gives none), or "" when the run had
// no terminal event.
func (o Outcome) ExitReason() lux.ExitReason {
	for _, e := range o.Events {
		switch {
		case e.Type == lux.EventDone:
			return lux.ExitDone
		case e.Type == lux.EventError && e.Error != nil && e.Error.ExitReason != "":
			return e.Error.ExitReason
		case e.Type == lux.EventError:
			return lux.ExitError
		}
	}
	return ""
}

// DefaultAnswer answers an interrupt as a cooperative user would: "yes" to
// a question, approval of a request, an empty payload to a custom one.
func DefaultAnswer(in lux.Interrupt) lux.Answer {
	a := lux.Answer{Kind: in.Kind, ID: in.ID}
	switch in.Kind {
	case lux.Ask:
		a.Text = "yes"
	case lux.Approve:
		a.Approved = true
	default:
		a.Payload = map[string]any{}
	}
	return a
}

// TestDriver checks that plugin keeps the driver contract, running each
// scenario, and reports every problem with t.Error. See CheckDriver for
// what is checked.
func TestDriver(t testing.TB, plugin *lux.DriverPlugin, scenarios ...DriverScenario) {
	t.Helper()
	checkDriver(t.Context(), plugin, scenarios).report(t)
}

// CheckDriver checks that plugin keeps the driver contract and returns a
// *ConformanceError listing every problem, or nil. It checks the plugin
// (Parse is strict; experiment support is complete, its Prepare leaves its
// input alone and its identity encodes as JSON), each scenario's config
// (it encodes as JSON, the same way every time; Runtime is stable and
// names no blank command — an in-process driver, launching none, declares
// none), and each scenario's session from Start to Close:
// Next with a cancelled context returns ctx.Err(); the events are well
// formed; only progress comes before ready, then exactly one terminal event
// and io.EOF after it; only interrupts of declared capabilities, each
// answered through Respond, after which the session goes on; Quiesce is
// idempotent; Collect returns only regular files inside the workspace,
// never through a symlink (the check plants symlinks pointing out of the
// workspace, and a fixture file Collect must return); Close succeeds.
func CheckDriver(ctx context.Context, plugin *lux.DriverPlugin, scenarios ...DriverScenario) error {
	return checkDriver(ctx, plugin, scenarios).err()
}

func checkDriver(ctx context.Context, plugin *lux.DriverPlugin, scenarios []DriverScenario) *checker {
	c, ok := pluginChecker("driver", plugin, func(p *lux.DriverPlugin) pluginID {
		return pluginID{name: p.Name, blank: "Name is blank; cases refer to a driver by its name", hasParse: p.Parse != nil}
	})
	if !ok {
		return c
	}
	if len(scenarios) == 0 {
		c.add("input", "no scenarios: give at least one DriverScenario with a config and a prompt the agent can complete")
		return c
	}
	if ctx.Err() != nil {
		c.add("cancelled", "the context was cancelled before the checks began: %v", context.Cause(ctx))
		return c
	}
	c.checkStrict(scenarios[0].Config, func(raw json.RawMessage) error { _, err := plugin.Parse(raw); return err })
	if plugin.Experiment != nil {
		c.checkExperiment(ctx, plugin, scenarios[0].Config)
	}
	for i, sc := range scenarios {
		if ctx.Err() != nil {
			c.scenario = ""
			c.add("cancelled", "the checks were cancelled before every scenario ran: %v", context.Cause(ctx))
			break
		}
		c.scenario = sc.Name
		if c.scenario == "" {
			c.scenario = fmt.Sprintf("scenario %d", i+1)
		}
		c.timeout = sc.Timeout
		if c.timeout <= 0 {
			c.timeout = DefaultTimeout
		}
		c.runScenario(ctx, plugin, sc)
	}
	return c
}

// checkConfig parses a scenario's config and checks the config and its
// runtime; it returns nil when the scenario cannot go on.
func (c *checker) checkConfig(plugin *lux.DriverPlugin, raw json.RawMessage) (lux.DriverConfig, lux.Runtime, bool) {
	cfg, fl, err := guard(c.timeout, func() (lux.DriverConfig, error) { return plugin.Parse(raw) })
	switch {
	case fl != "":
		c.add("parse", "Parse(%s) %s", raw, fl)
		return nil, lux.Runtime{}, false
	case err != nil:
		c.add("parse", "Parse rejected the scenario's config %s: %v", raw, err)
		return nil, lux.Runtime{}, false
	case cfg == nil:
		c.add("parse", "Parse returned a nil config and no error")
		return nil, lux.Runtime{}, false
	}
	c.checkConfigJSON(raw, cfg, func() (any, error) { return plugin.Parse(raw) })
	rt, ok := c.checkRuntime(cfg)
	return cfg, rt, ok
}

// checkRuntime checks that Runtime is stable and declares what it launches.
func (c *checker) checkRuntime(cfg lux.DriverConfig) (lux.Runtime, bool) {
	rt, fl, _ := guard(c.timeout, func() (lux.Runtime, error) { return cfg.Runtime(), nil })
	if fl != "" {
		c.add("runtime", "Runtime() %s", fl)
		return rt, false
	}
	again, fl, _ := guard(c.timeout, func() (lux.Runtime, error) { return cfg.Runtime(), nil })
	if fl == "" && !reflect.DeepEqual(rt, again) {
		c.add("runtime", "Runtime() is not stable: %+v, then %+v", rt, again)
	}
	for i, cmd := range rt.Commands {
		if strings.TrimSpace(cmd) == "" {
			c.add("runtime", "Runtime.Commands[%d] is blank", i)
		}
	}
	seen := map[lux.Capability]bool{}
	for i, cp := range rt.Capabilities {
		if strings.TrimSpace(string(cp)) == "" {
			c.add("runtime", "Runtime.Capabilities[%d] is blank", i)
		}
		if seen[cp] {
			c.add("runtime", "Runtime declares capability %q twice", cp)
		}
		seen[cp] = true
	}
	return rt, true
}

// checkExperiment checks the plugin's experiment support with raw as the
// ordinary config.
func (c *checker) checkExperiment(ctx context.Context, plugin *lux.DriverPlugin, raw json.RawMessage) {
	exp := plugin.Experiment
	if strings.TrimSpace(exp.Version) == "" {
		c.add("experiment", "Experiment.Version is blank; it must name the version of the driver's behaviour")
	}
	if exp.Prepare == nil || exp.Identity == nil {
		c.add("experiment", "experiment support needs both Prepare and Identity")
		return
	}
	cfg, fl, err := guard(c.timeout, func() (lux.DriverConfig, error) { return plugin.Parse(raw) })
	if fl != "" || err != nil || cfg == nil {
		return // reported with the scenario
	}
	before, _ := digest.CanonicalJSON(cfg)
	prepared, fl, err := guard(c.timeout, func() (lux.DriverConfig, error) { return exp.Prepare(cfg) })
	switch {
	case fl != "":
		c.add("experiment", "Prepare %s", fl)
		return
	case err != nil:
		c.add("experiment", "Prepare failed on the first scenario's config: %v", err)
		return
	case prepared == nil:
		c.add("experiment", "Prepare returned a nil config and no error")
		return
	}
	if after, _ := digest.CanonicalJSON(cfg); !bytes.Equal(before, after) {
		c.add("experiment", "Prepare changed its input config (%s became %s); return a new config instead", before, after)
	}
	once, err := digest.CanonicalJSON(prepared)
	if err != nil {
		c.add("experiment", "the prepared config does not encode as JSON: %v", err)
		return
	}
	twice, fl, err := guard(c.timeout, func() ([]byte, error) {
		p, err := exp.Prepare(prepared)
		if err != nil {
			return nil, err
		}
		return digest.CanonicalJSON(p)
	})
	switch {
	case fl != "":
		c.add("experiment", "Prepare of a prepared config %s", fl)
	case err != nil:
		c.add("experiment", "Prepare of a prepared config failed: %v", err)
	case !bytes.Equal(once, twice):
		c.add("experiment", "Prepare is not idempotent: %s, then %s", once, twice)
	}
	root, err := os.MkdirTemp("", "luxtest-identity-")
	if err != nil {
		c.add("setup", "%v", err)
		return
	}
	defer os.RemoveAll(root)
	var hashes []string
	for range 2 {
		h, fl, err := guard(c.timeout, func() (string, error) {
			id, err := exp.Identity(ctx, prepared, root)
			if err != nil {
				return "", err
			}
			return digest.Value(id)
		})
		switch {
		case fl != "":
			c.add("experiment", "Identity %s", fl)
			return
		case err != nil:
			c.add("experiment", "Identity of the prepared config failed, or its identity does not encode as JSON: %v", err)
			return
		}
		hashes = append(hashes, h)
	}
	if hashes[0] != hashes[1] {
		c.add("experiment", "Identity is not stable: two calls in a row gave different identities")
	}
}
