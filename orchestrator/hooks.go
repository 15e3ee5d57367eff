package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/setup"
	"github.com/luxeval/lux/record"
)

// resolvedHook is one entry of Options.Hooks, parsed once.
type resolvedHook struct {
	step string // how errors name it: `hook #1 "db"`
	hook lux.Hook
	id   record.HookIdentity
}

// resolveHooks parses Options.Hooks against the registry, reporting every
// problem with its field path.
func (o *Orchestrator) resolveHooks() ([]resolvedHook, error) {
	var probs lux.Problems
	var out []resolvedHook
	for i, ref := range o.opts.Hooks {
		at := fmt.Sprintf("%s[%d]", o.optionName("Hooks"), i)
		if strings.TrimSpace(ref.Name) == "" {
			probs.AddFix(at+".name", "required", "name a registered hook plugin")
			continue
		}
		p, err := o.reg.Hook(ref.Name)
		if err != nil {
			problem := err.Error()
			var up *lux.UnknownPluginError
			if errors.As(err, &up) {
				problem = up.Problem()
			}
			probs.AddFix(at+".name", problem, "register hook plugins with Registry.RegisterHook")
			continue
		}
		raw, err := lux.ConfigJSON(ref.Config)
		if err != nil {
			probs.Add(at+".config", err.Error())
			continue
		}
		h, err := p.Parse(raw)
		if err != nil {
			probs.Merge(at+".config", err)
			continue
		}
		if h == nil {
			probs.Add(at, fmt.Sprintf("hook plugin %q returned no hook", ref.Name))
			continue
		}
		hash, err := digest.Value(rawOrNull(raw))
		if err != nil {
			probs.Add(at+".config", err.Error())
			continue
		}
		out = append(out, resolvedHook{step: fmt.Sprintf("hook #%d %q", i+1, ref.Name), hook: h,
			id: record.HookIdentity{Name: ref.Name, Version: p.Version, ConfigHash: hash}})
	}
	if err := probs.Err(lux.ErrInvalidConfig); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	return out, nil
}

func rawOrNull(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// hookIdentities are the hooks as part of a run's identity (nil without
// hooks, so that runs without hooks keep the identity they had).
func (o *Orchestrator) hookIdentities() []record.HookIdentity {
	var ids []record.HookIdentity
	for _, h := range o.hooks {
		ids = append(ids, h.id)
	}
	return ids
}

// cleanupContext is what cleanups run with: not cancelled by the run's or
// suite's cancellation, bounded by CleanupTimeout.
func (o *Orchestrator) cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), o.opts.CleanupTimeout)
}

// setupHooks runs the case-level setups before the agent starts. A failure
// (after the rollback of what was set up) fails the run in phase hook.
func (r *runState) setupHooks(ctx context.Context) bool {
	if len(r.o.hooks) == 0 {
		return true
	}
	scope := lux.CaseScope{CaseID: r.p.caseID, Repetition: r.meta.Repetition, RunDir: r.dir, Workspace: r.workspace}
	steps := make([]setup.Step, len(r.o.hooks))
	for i, h := range r.o.hooks {
		steps[i] = setup.Step{Name: h.step, Setup: func(ctx context.Context) (lux.Cleanup, error) { return h.hook.SetupCase(ctx, scope) }}
	}
	td, err := setup.Run(ctx, steps, r.o.cleanupContext)
	if err != nil { // rolled back: nothing left to clean up
		if r.checkCancel(ctx, err) {
			return false
		}
		r.fail(record.PhaseHook, lux.ExitError, errors.New("case setup: "+setup.ErrorText(err)))
		return false
	}
	r.hooks = td
	return true
}

// cleanupHooks runs the case-level cleanups once the run is graded; a
// failure is noted on the run's record in phase hook.
func (r *runState) cleanupHooks() {
	if err := r.hooks.Close(); err != nil {
		r.note(record.PhaseHook, errors.New("case cleanup: "+setup.ErrorText(err)))
	}
}

// runJobsWithHooks runs the suite-level setups, the jobs, and the
// cleanups. A failed setup runs nothing (a new suite's empty directory is
// removed); a failed cleanup is joined to the suite's error, with the
// result.
func (o *Orchestrator) runJobsWithHooks(ctx context.Context, dir string, m *record.SuiteManifest, jobs []job) (*record.Suite, error) {
	if len(o.hooks) == 0 {
		return o.runJobs(ctx, dir, m, jobs)
	}
	scope := lux.SuiteScope{SuiteID: m.SuiteID, Dir: dir}
	steps := make([]setup.Step, len(o.hooks))
	for i, h := range o.hooks {
		steps[i] = setup.Step{Name: h.step, Setup: func(ctx context.Context) (lux.Cleanup, error) { return h.hook.SetupSuite(ctx, scope) }}
	}
	td, err := setup.Run(ctx, steps, o.cleanupContext)
	if err != nil {
		_ = os.Remove(dir) // only when empty: a suite being resumed keeps its record
		return nil, fmt.Errorf("orchestrator: suite setup: %w", err)
	}
	res, err := o.runJobs(ctx, dir, m, jobs)
	if cerr := td.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("orchestrator: suite %s cleanup: %w", dir, cerr))
		// suite.json says so: the suite's record outlives the error.
		if res != nil && res.Manifest != nil {
			res.Manifest.CleanupError = setup.ErrorText(cerr)
			if werr := o.writeSuiteJSON(dir, record.SuiteFile, res.Manifest); werr != nil {
				err = errors.Join(err, fmt.Errorf("orchestrator: suite %s: record the cleanup failure: %w", dir, werr))
			}
		}
	}
	return res, err
}
