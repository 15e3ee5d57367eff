package orchestrator

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// Orchestrator runs cases and suites through the plugins of a Registry and
// keeps every run's evidence on disk (see package record). It is safe for
// concurrent use.
type Orchestrator struct {
	reg     *lux.Registry
	opts    Options
	env     json.RawMessage
	envErr  error
	harness json.RawMessage
	logOpts record.LogOptions
	writer  record.Writer
	prov    *provenanceCache
	progMu  sync.Mutex
	sealer  sealer
	hooks   []resolvedHook // Options.Hooks, parsed
	exec    *Execution     // ExecutePlanned's caller's hooks; nil here
}

// New returns an Orchestrator using the plugins of reg. The zero Options
// are sane defaults (see Options).
func New(reg *lux.Registry, opts Options) *Orchestrator {
	if reg == nil {
		reg = lux.NewRegistry()
	}
	o := &Orchestrator{reg: reg, opts: opts.withDefaults()}
	o.prov = newProvenanceCache(o.opts.RunsRoot)
	o.logOpts = record.LogOptions{MaxBytes: o.opts.MaxEventBytes, MaxEvents: o.opts.MaxEvents, Sync: o.opts.Fsync}
	o.writer = record.Writer{Sync: o.opts.Fsync}
	if o.opts.Environment != nil {
		raw, err := lux.ConfigJSON(o.opts.Environment)
		if err == nil && !json.Valid(raw) {
			err = fmt.Errorf("not valid JSON")
		}
		if err != nil {
			o.envErr = fmt.Errorf("orchestrator: %s: %w", o.optionName("Environment"), err)
		}
		o.env = raw
	}
	if o.opts.Harness != nil {
		raw, err := lux.ConfigJSON(o.opts.Harness)
		var obj map[string]json.RawMessage
		if err == nil && json.Unmarshal(raw, &obj) != nil {
			err = fmt.Errorf("must be a JSON object such as {\"provider\": \"claude-code\"}")
		}
		if err != nil && o.envErr == nil {
			o.envErr = fmt.Errorf("orchestrator: Options.Harness: %w", err)
		}
		o.harness = raw
	}
	if hooks, err := o.resolveHooks(); err != nil && o.envErr == nil {
		o.envErr = err
	} else {
		o.hooks = hooks
	}
	return o
}

// RunsRoot returns the directory runs and suites are recorded under.
func (o *Orchestrator) RunsRoot() string { return o.opts.RunsRoot }

func (o *Orchestrator) progress(u Update) {
	if o.opts.Progress == nil {
		return
	}
	o.progMu.Lock()
	defer o.progMu.Unlock()
	o.opts.Progress(u)
}

// optionName is how the caller spells the option field (see
// Options.OptionNames).
func (o *Orchestrator) optionName(field string) string {
	if n := o.opts.OptionNames[field]; n != "" {
		return n
	}
	return "Options." + field
}
