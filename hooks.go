package lux

import (
	"context"
	"encoding/json"
	"fmt"
)

// Lifecycle hooks set up what a suite's or a case's runs need around them
// (a database, a dev server, a fixture service) and tear it down again.
//
// A hook plugin is registered from Go (Registry.RegisterHook) and named,
// with its config, in the orchestrator's options or lux.json ("hooks").
// Setup runs in the order the hooks are listed and cleanup in reverse,
// each exactly once: after the suite's last run (suite level) or after the
// run is graded (case level), also when the context is cancelled, and when
// a later setup fails (rollback). A hook is part of every run's identity
// (its name, version and config hash in record.RuntimeInfo.Hooks); a
// failed setup or cleanup is an operational failure in phase
// record.PhaseHook.

// HookPlugin is a kind of lifecycle hook.
type HookPlugin struct {
	Name string
	Doc  string
	// Version changes when what the hook sets up changes; it is part of
	// the identity of every run it surrounds.
	Version string
	// Parse decodes and validates the hook's config strictly (see
	// DecodeConfig).
	Parse func(raw json.RawMessage) (Hook, error)
}

// Hook is a configured lifecycle hook. Either setup may do nothing and
// return a nil Cleanup.
type Hook interface {
	// SetupSuite runs once before a suite's first run; its cleanup runs
	// once after its last.
	SetupSuite(ctx context.Context, s SuiteScope) (Cleanup, error)
	// SetupCase runs before each run's agent starts, with its workspace
	// staged; its cleanup runs after the run is graded, before its record
	// is finished.
	SetupCase(ctx context.Context, c CaseScope) (Cleanup, error)
}

// Cleanup undoes a setup. It is called exactly once, with a context that
// is not cancelled by the run's or suite's cancellation (but bounded by
// the orchestrator's CleanupTimeout).
type Cleanup func(ctx context.Context) error

// SuiteScope is what a suite-level setup is told.
type SuiteScope struct {
	SuiteID string
	Dir     string // the suite's record directory
}

// CaseScope is what a case-level setup is told.
type CaseScope struct {
	CaseID     string
	Repetition int    // 1-based within a suite; 0 outside one
	RunDir     string // the run's record directory
	Workspace  string // where the agent will work, fixtures staged
}

// HookFuncs is a Hook made of functions; a nil function sets up nothing.
type HookFuncs struct {
	Suite func(ctx context.Context, s SuiteScope) (Cleanup, error)
	Case  func(ctx context.Context, c CaseScope) (Cleanup, error)
}

// SetupSuite calls h.Suite, if set.
func (h HookFuncs) SetupSuite(ctx context.Context, s SuiteScope) (Cleanup, error) {
	if h.Suite == nil {
		return nil, nil
	}
	return h.Suite(ctx, s)
}

// SetupCase calls h.Case, if set.
func (h HookFuncs) SetupCase(ctx context.Context, c CaseScope) (Cleanup, error) {
	if h.Case == nil {
		return nil, nil
	}
	return h.Case(ctx, c)
}

// RegisterHook adds p; it needs a Name, a Doc and a Parse function, and a
// duplicate name is an error.
func (r *Registry) RegisterHook(p *HookPlugin) error {
	if p == nil || p.Name == "" || p.Parse == nil {
		return fmt.Errorf("lux: hook plugin needs a Name and a Parse function")
	}
	if err := needDoc("hook", p.Name, p.Doc); err != nil {
		return err
	}
	return register(&r.mu, r.hooks, "hook", p.Name, p)
}

// Hook returns the hook plugin registered under name.
func (r *Registry) Hook(name string) (*HookPlugin, error) {
	return lookup(&r.mu, r.hooks, "hook", name)
}

// Hooks lists the registered hook plugins' names, sorted.
func (r *Registry) Hooks() []string { return names(&r.mu, r.hooks) }
