package luxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/luxeval/lux"
)

// TestAnswerer checks that plugin keeps the answerer contract with config
// cfg, answering each of interrupts, and reports every problem with
// t.Error. See CheckAnswerer for what is checked.
func TestAnswerer(t testing.TB, plugin *lux.AnswererPlugin, cfg json.RawMessage, interrupts ...lux.Interrupt) {
	t.Helper()
	checkAnswerer(t.Context(), plugin, cfg, interrupts).report(t)
}

// CheckAnswerer checks that plugin keeps the answerer contract and returns
// a *ConformanceError listing every problem, or nil. Parse is strict and
// its config encodes as JSON, the same way every time; the config prepares
// an answerer; each interrupt (which cfg must be able to answer) gets an
// answer of the same kind and id that encodes as JSON, without the history
// it is given being changed; Usage is never negative and never decreases;
// Close succeeds.
func CheckAnswerer(ctx context.Context, plugin *lux.AnswererPlugin, cfg json.RawMessage, interrupts ...lux.Interrupt) error {
	return checkAnswerer(ctx, plugin, cfg, interrupts).err()
}

func checkAnswerer(ctx context.Context, plugin *lux.AnswererPlugin, raw json.RawMessage, interrupts []lux.Interrupt) *checker {
	c, ok := pluginChecker("answerer", plugin, func(p *lux.AnswererPlugin) pluginID {
		return pluginID{name: p.Name, blank: "Name is blank; cases refer to an answerer by its name", hasParse: p.Parse != nil}
	})
	if !ok {
		return c
	}
	c.checkStrict(raw, func(raw json.RawMessage) error { _, err := plugin.Parse(raw); return err })
	cfg, fl, err := guard(c.timeout, func() (lux.AnswererConfig, error) { return plugin.Parse(raw) })
	switch {
	case fl != "":
		c.add("parse", "Parse(%s) %s", raw, fl)
		return c
	case err != nil:
		c.add("parse", "Parse rejected the config %s: %v", raw, err)
		return c
	case cfg == nil:
		c.add("parse", "Parse returned a nil config and no error")
		return c
	}
	c.checkConfigJSON(raw, cfg, func() (any, error) { return plugin.Parse(raw) })

	runDir, err := os.MkdirTemp("", "luxtest-answerer-")
	if err != nil {
		c.add("setup", "%v", err)
		return c
	}
	defer os.RemoveAll(runDir)
	info := lux.AnswererInfo{CaseID: "luxtest", Prompt: "a task for the agent", RunDir: runDir}
	ans, fl, err := guard(c.timeout, func() (lux.Answerer, error) { return cfg.Prepare(ctx, info) })
	switch {
	case fl != "":
		c.add("prepare", "Prepare %s", fl)
		return c
	case err != nil:
		c.add("prepare", "Prepare failed: %v", err)
		return c
	case ans == nil:
		c.add("prepare", "Prepare returned a nil answerer and no error")
		return c
	}
	last, ok := c.checkUsage(ans, lux.ModelUsage{}, "before any answer")
	var history []lux.Exchange
	for i, in := range interrupts {
		c.scenario = fmt.Sprintf("interrupts[%d]", i)
		if _, known := interruptCapability[in.Kind]; !known || in.ID == "" {
			c.add("input", "an interrupt needs a kind (ask, approve or custom) and an id; got kind %q, id %q", in.Kind, in.ID)
			continue
		}
		given := slices.Clone(history)
		before, _ := json.Marshal(given)
		a, fl, err := guard(c.timeout, func() (lux.Answer, error) { return ans.Answer(ctx, in, given) })
		switch {
		case fl != "":
			c.add("answer", "Answer to %s interrupt %q %s", in.Kind, in.ID, fl)
			continue
		case err != nil:
			c.add("answer", "Answer to %s interrupt %q (%q) failed: %v", in.Kind, in.ID, clip(in.Text(), 80), err)
			continue
		}
		if err := a.Matches(in); err != nil {
			c.add("answer", "%v; an answer must have the kind and id of its interrupt, or the run fails", err)
		}
		if _, err := json.Marshal(lux.Event{Type: lux.EventResponded, Answer: &a}); err != nil {
			c.add("answer", "the answer does not encode as JSON, so it cannot be recorded: %v", err)
		}
		if after, _ := json.Marshal(given); !bytes.Equal(before, after) {
			c.add("answer", "Answer changed the history it was given")
		}
		history = append(history, lux.Exchange{Interrupt: in, Answer: a})
		if ok {
			last, ok = c.checkUsage(ans, last, "after an answer")
		}
	}
	c.scenario = ""
	fl, err = guardErr(c.timeout, ans.Close)
	switch {
	case fl != "":
		c.add("close", "Close %s", fl)
	case err != nil:
		c.add("close", "Close failed: %v", err)
	}
	c.note("answered %s", plural(len(history), "interrupt"))
	return c
}

// checkUsage checks the answerer's usage: never negative, never less than
// prev. False once a problem is reported, so it is reported once.
func (c *checker) checkUsage(ans lux.Answerer, prev lux.ModelUsage, when string) (lux.ModelUsage, bool) {
	u, fl, _ := guard(c.timeout, func() (lux.ModelUsage, error) { return ans.Usage(), nil })
	switch {
	case fl != "":
		c.add("usage", "Usage %s", fl)
	case u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheCreation < 0 || u.Calls < 0 || u.UnpricedCalls < 0 || u.CostUSD < 0 || math.IsNaN(u.CostUSD):
		c.add("usage", "Usage %s is negative: %+v", when, u)
	case u.Input < prev.Input || u.Output < prev.Output || u.CacheRead < prev.CacheRead || u.CacheCreation < prev.CacheCreation ||
		u.Calls < prev.Calls || u.UnpricedCalls < prev.UnpricedCalls || u.CostUSD < prev.CostUSD:
		c.add("usage", "Usage decreased %s, from %+v to %+v; it counts every token the answerer spent in the run", when, prev, u)
	default:
		return u, true
	}
	return u, false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
