package cli

import (
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// RecordsReport is what `lux view -json` prints: the latest experiments,
// suites and runs under the runs root, oldest first.
type RecordsReport struct {
	Schema      string               `json:"schema"` // "lux.records/v1"
	Root        string               `json:"root"`
	Experiments []ExperimentListItem `json:"experiments"`
	Suites      []SuiteListItem      `json:"suites"`
	Runs        []RunListItem        `json:"runs"`
	// SuitesFound and RunsFound count every suite and run under Root;
	// Suites and Runs hold the latest -n of them.
	SuitesFound int `json:"suitesFound"`
	RunsFound   int `json:"runsFound"`
}

// SuiteListItem is one suite of a listing.
type SuiteListItem struct {
	Dir        string             `json:"dir"`
	Status     record.SuiteStatus `json:"status,omitempty"`
	Runs       int                `json:"runs"`
	Totals     *record.Outcome    `json:"totals,omitempty"` // absent when the suite never finished
	Label      string             `json:"label,omitempty"`
	Unreadable string             `json:"unreadable,omitempty"`
}

// RunListItem is one run of a listing.
type RunListItem struct {
	Dir        string         `json:"dir"`
	CaseID     string         `json:"caseId,omitempty"`
	Verdict    record.Verdict `json:"verdict,omitempty"` // pass, fail, error, cancelled, ungraded (see record.Verdict)
	Score      *float64       `json:"score,omitempty"`
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	DurationMS int64          `json:"durationMs"`
	Unreadable string         `json:"unreadable,omitempty"`
	scoreText  string
}

func newRecordsReport(root string, limit int) (*RecordsReport, error) {
	suites, err := record.FindSuites(root)
	if err != nil {
		return nil, err
	}
	runs, err := record.FindRuns(root)
	if err != nil {
		return nil, err
	}
	rep := &RecordsReport{Schema: "lux.records/v1", Root: root, Suites: []SuiteListItem{}, Runs: []RunListItem{},
		SuitesFound: len(suites), RunsFound: len(runs)}
	if rep.Experiments, err = listExperiments(root, limit); err != nil {
		return nil, err
	}
	for _, dir := range latest(suites, limit) {
		s, err := record.ReadSuite(dir)
		if err != nil {
			rep.Suites = append(rep.Suites, SuiteListItem{Dir: dir, Unreadable: err.Error()})
			continue
		}
		it := SuiteListItem{Dir: dir, Status: s.Manifest.LiveStatus(), Runs: len(s.Manifest.Items), Label: s.Manifest.Label}
		if s.Summary != nil {
			it.Totals = &s.Summary.Totals
		}
		rep.Suites = append(rep.Suites, it)
	}
	for _, dir := range latest(runs, limit) {
		m, g, err := record.ReadMetadata(dir)
		if err != nil {
			rep.Runs = append(rep.Runs, RunListItem{Dir: dir, Unreadable: err.Error()})
			continue
		}
		it := RunListItem{Dir: dir, CaseID: m.CaseID, Verdict: record.RunVerdict(m, g), ExitReason: m.ExitReason,
			DurationMS: m.Duration().Round(1e7).Milliseconds(), scoreText: scoreText(g)}
		if g != nil {
			it.Score = g.Score
		}
		rep.Runs = append(rep.Runs, it)
	}
	return rep, nil
}

// RunReport is what `lux view -json RUN_DIR` prints: the run's records as
// they are on disk (run.json, grading.json, case.json, artifacts.json) and
// its last events.
type RunReport struct {
	Schema    string             `json:"schema"` // "lux.run-record/v1"
	Dir       string             `json:"dir"`
	Case      *record.CaseRecord `json:"case,omitempty"`
	Run       *record.Metadata   `json:"run"`
	Grading   *record.Grading    `json:"grading,omitempty"`
	Events    []lux.Event        `json:"events"` // the last -events of them (all with -events 0)
	NumEvents int                `json:"numEvents"`
	Artifacts []lux.Artifact     `json:"artifacts"`
	// Seal is "verified" (every file as sealed) or "unsealed" (recorded
	// before records were sealed).
	Seal record.SealState `json:"seal,omitempty"`
}

func newRunReport(r *record.Run, lastEvents int) RunReport {
	evs := r.Events
	if lastEvents > 0 && len(evs) > lastEvents {
		evs = evs[len(evs)-lastEvents:]
	}
	return RunReport{Schema: "lux.run-record/v1", Dir: r.Dir, Case: r.Case, Run: r.Metadata, Grading: r.Grading,
		Events: append([]lux.Event{}, evs...), NumEvents: len(r.Events), Artifacts: append([]lux.Artifact{}, r.Artifacts...)}
}
