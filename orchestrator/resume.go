package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// ErrNothingToResume reports a suite every item of which already ran to a
// verdict (or to an error): there is nothing for ResumeSuite to do.
var ErrNothingToResume = errors.New("orchestrator: nothing to resume")

// Missing returns the indexes of the items of m that ResumeSuite would
// run: those that never started or did not finish (not run), and those
// that were cancelled.
func Missing(m *record.SuiteManifest) []int {
	var out []int
	for i, it := range m.Items {
		if v := it.Verdict(); v == record.VerdictNotRun || v == record.VerdictCancelled {
			out = append(out, i)
		}
	}
	return out
}

// ResumeSuite runs, in the suite directory dir, the items an interrupted
// suite is missing (see Missing), and records them in its suite.json as if
// the suite had never stopped; the items that ran keep their runs. cases
// must hold every case a missing item names (cases with other ids are
// ignored); each item keeps its repetition number. The suite must not be
// running in another process, the orchestrator's environment declaration
// must be the suite's, and its runs root the one the suite is under
// (<root>/.suites/<id>).
//
// A suite with nothing missing returns its result and ErrNothingToResume.
func (o *Orchestrator) ResumeSuite(ctx context.Context, dir string, cases []*lux.Case) (*record.Suite, error) {
	dir = absPath(dir)
	if root := filepath.Dir(filepath.Dir(dir)); filepath.Base(filepath.Dir(dir)) != record.SuitesDir || root != o.opts.RunsRoot {
		return nil, fmt.Errorf("orchestrator: resume: %s is not a suite directory under the runs root %s (give the suite's own runs root as %s)",
			dir, o.opts.RunsRoot, o.optionName("RunsRoot"))
	}
	s, err := record.ReadSuite(dir)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: resume: %w", err)
	}
	m := s.Manifest
	if m.LiveStatus() == record.SuiteRunning {
		who := "another process"
		if m.Owner != nil {
			who = fmt.Sprintf("process %d on %s", m.Owner.PID, m.Owner.Host)
		}
		return nil, fmt.Errorf("orchestrator: resume: suite %s is still running (%s); wait for it or stop it first", dir, who)
	}
	// What the suite's killed harness gave its agents (workspaces, prompt
	// files) is of no use now: its runs are run again.
	record.SweepLive(o.opts.RunsRoot)
	missing := Missing(m)
	if len(missing) == 0 {
		return &record.Suite{Dir: dir, Manifest: m, Summary: s.Summary},
			fmt.Errorf("%w: every run of suite %s has finished", ErrNothingToResume, dir)
	}
	if !sameJSON(m.Environment, o.env) {
		return nil, fmt.Errorf("orchestrator: resume: suite %s declares the environment %s, this run %s; resume it with the same %s",
			dir, orNone(m.Environment), orNone(o.env), o.optionName("Environment"))
	}
	byID := map[string]*lux.Case{}
	for _, c := range cases {
		if c != nil {
			byID[c.CanonicalID()] = c
		}
	}
	var need []*lux.Case
	var absent []string
	seen := map[string]bool{}
	for _, i := range missing {
		id := m.Items[i].CaseID
		if seen[id] {
			continue
		}
		seen[id] = true
		if c := byID[id]; c != nil {
			need = append(need, c)
		} else {
			absent = append(absent, id)
		}
	}
	if len(absent) > 0 {
		return nil, fmt.Errorf("orchestrator: resume: suite %s has runs of %q to do, but no case with that id was given", dir, absent)
	}
	plans, err := o.suitePlans(need)
	if err != nil {
		return nil, err
	}
	planOf := map[string]*plan{}
	for _, p := range plans {
		planOf[p.caseID] = p
	}
	jobs := make([]job, 0, len(missing))
	for _, i := range missing {
		it := &m.Items[i]
		p := planOf[it.CaseID]
		jobs = append(jobs, job{p: p, rep: it.Repetition, item: i})
		*it = record.SuiteItem{CaseID: it.CaseID, Repetition: it.Repetition, Cluster: it.Cluster, CasePath: absPath(p.c.Path), Status: record.ItemPending}
	}
	m.Status, m.EndedAt, m.Owner = record.SuiteRunning, nil, record.CurrentOwner()
	m.Concurrency = min(o.opts.Concurrency, len(jobs))
	return o.runJobsWithHooks(ctx, dir, m, jobs)
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func orNone(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "none"
	}
	return string(raw)
}
