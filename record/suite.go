package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
)

// SuiteStatus is the state of a suite as a whole.
type SuiteStatus string

// The suite statuses.
const (
	SuiteRunning   SuiteStatus = "running"
	SuitePassed    SuiteStatus = "passed"    // every run passed (or had nothing to grade)
	SuiteFailed    SuiteStatus = "failed"    // some run failed, or could not be graded (error)
	SuiteCancelled SuiteStatus = "cancelled" // stopped before every item ran
	// SuiteInterrupted (owner.go) is derived when reading, never written.
)

// ItemStatus is the state of one suite item (one run).
type ItemStatus string

// The item statuses.
const (
	ItemPending   ItemStatus = "pending"
	ItemRunning   ItemStatus = "running"
	ItemCompleted ItemStatus = "completed" // ran (whatever its outcome) or was refused
	ItemSkipped   ItemStatus = "skipped"   // never started: the suite was cancelled
)

// SuiteManifest is suite.json, rewritten as items change state.
type SuiteManifest struct {
	SchemaVersion int         `json:"schemaVersion"`
	LuxVersion    string      `json:"luxVersion"`
	SuiteID       string      `json:"suiteId"`
	StartedAt     time.Time   `json:"startedAt"`
	EndedAt       *time.Time  `json:"endedAt"`
	Status        SuiteStatus `json:"status"`
	Concurrency   int         `json:"concurrency"`
	Repetitions   int         `json:"repetitions"`
	// Label names the suite for later reference ("label:NAME" wherever a
	// suite is named; see ResolveSuite): lux run -label, luxtest's
	// Suite.Label. Empty when none was given.
	Label string `json:"label,omitempty"`
	// GitBranch is the git branch checked out in the working directory
	// when the suite started, when git could tell: data, never a label.
	GitBranch string `json:"gitBranch,omitempty"`
	// Environment is the user's declaration, as in every run's provenance.
	Environment json.RawMessage `json:"environment,omitempty"`
	Error       string          `json:"error,omitempty"`
	// StoppedBy says what stopped the suite from starting all its runs,
	// when something other than a cancellation did: StoppedByBudget (its
	// budget was used up; Error says how). Its items not started are
	// skipped, and a resume runs them.
	StoppedBy string `json:"stoppedBy,omitempty"`
	// CleanupError is why a suite-level hook's cleanup failed, once every
	// run had ended (see lux.HookPlugin); the runs' verdicts stand, but
	// what the hooks started may still be running.
	CleanupError string `json:"cleanupError,omitempty"`
	// Owner is the process running the suite, so that a reader can tell a
	// suite still running from one whose harness died (see LiveStatus).
	Owner *Owner      `json:"owner,omitempty"`
	Items []SuiteItem `json:"items"`
}

// StoppedByBudget is SuiteManifest.StoppedBy for a suite whose budget
// was used up.
const StoppedByBudget = "budget"

// SuiteItem is one run of a suite: a case at one repetition.
type SuiteItem struct {
	CaseID     string `json:"caseId"`     // canonical: repetitions share it
	Repetition int    `json:"repetition"` // 1-based
	Cluster    string `json:"cluster,omitempty"`
	// CasePath is the absolute path of the case file ("" for an inline
	// case), so that an interrupted suite can be resumed from its cases.
	CasePath   string         `json:"casePath,omitempty"`
	Status     ItemStatus     `json:"status"`
	RunDir     string         `json:"runDir,omitempty"` // relative to the suite directory, slash-separated
	ExitReason lux.ExitReason `json:"exitReason,omitempty"`
	Passed     *bool          `json:"casePassed"`
	Score      *float64       `json:"caseScore,omitempty"`
	// RunVerdict is the run's verdict (see RunVerdict); read it with
	// Verdict, which also covers items that never ran.
	RunVerdict Verdict `json:"verdict,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// Failed reports whether a completed item is a failure of the agent
// (VerdictFail).
func (it SuiteItem) Failed() bool { return it.Verdict() == VerdictFail }

// Suite is a finished suite: its record as the orchestrator returns it
// (one small item per run, never a run's events), or as ReadSuite reads it
// back from disk.
type Suite struct {
	Dir      string
	Manifest *SuiteManifest
	Summary  *SuiteSummary // nil when the suite never finished
	// Seal says whether its files were checked against the suite's seal;
	// empty for a suite the orchestrator has just recorded.
	Seal SealState
	// Written holds, for a suite the orchestrator has just recorded, the
	// brief (see RunBrief) of the run.json and grading.json of each item it
	// ran, taken as it wrote them, index-aligned with Manifest.Items: nil
	// for an item it did not run here (an earlier part of a resumed
	// suite), or whose record is not complete. Empty for a suite read from
	// disk. Read it through ItemBrief.
	Written []*RunBrief
}

// ItemBrief returns the brief of item i's run.json and grading.json: as
// written (Written), else of its records read from its run directory
// (ItemRecord); nil when the item has no run directory or its record
// cannot be read.
func (s *Suite) ItemBrief(i int) *RunBrief {
	if i < len(s.Written) && s.Written[i] != nil {
		return s.Written[i]
	}
	m, g := s.ItemRecord(i)
	if m == nil {
		return nil
	}
	return NewRunBrief(m, g)
}

// ItemRow returns the row of item i (see NewRunRow), runDir as its
// directory: of its brief as written (Written), else of its records read
// from its run directory, for a completed item; of the item alone when it
// has no readable record, with why in the row's RecordError and as the
// error (an ErrSealBroken for a record changed since it was sealed).
func (s *Suite) ItemRow(i int, runDir string) (RunRow, error) {
	it := s.Manifest.Items[i]
	var b *RunBrief
	var readErr error
	if it.RunDir != "" && it.Status == ItemCompleted {
		if i < len(s.Written) && s.Written[i] != nil {
			b = s.Written[i]
		} else {
			var m *Metadata
			var g *Grading
			if m, g, readErr = s.itemRecord(i); m != nil {
				b = rowBrief(m, g) // a row reads no identity hash nor metrics
			}
		}
	}
	row := newRunRowOf(it.CaseID, it.Repetition, it.Verdict(), runDir, b, it.Error)
	if readErr != nil {
		row.RecordError = readErr.Error()
	}
	return row, readErr
}

// ItemRecord reads the run.json and grading.json of item i from its run
// directory (ReadMetadata); nil when the item has no run directory or its
// record cannot be read. A suite just recorded keeps only their briefs
// (Written, ItemBrief).
func (s *Suite) ItemRecord(i int) (*Metadata, *Grading) {
	m, g, _ := s.itemRecord(i)
	return m, g
}

// itemRecord is ItemRecord with the reason a record cannot be read.
func (s *Suite) itemRecord(i int) (*Metadata, *Grading, error) {
	dir := s.RunDir(i)
	if dir == "" {
		return nil, nil, nil
	}
	m, g, err := ReadMetadata(dir)
	if err != nil {
		return nil, nil, err
	}
	return m, g, nil
}

// RunDir returns the absolute (or root-relative) run directory of item i.
func (s *Suite) RunDir(i int) string {
	rd := s.Manifest.Items[i].RunDir
	if rd == "" {
		return ""
	}
	return filepath.Join(s.Dir, filepath.FromSlash(rd))
}

// ReadSuite reads suite.json and, when present, suite-summary.json.
func ReadSuite(dir string) (*Suite, error) {
	if _, err := os.Stat(filepath.Join(dir, SuiteFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record: %s is not a suite directory: it has no %s", dir, SuiteFile)
	}
	sc, err := openSeal(dir)
	if err != nil {
		return nil, err
	}
	if err := sc.unsealedErr(nil); err != nil {
		return nil, err
	}
	var m SuiteManifest
	ok, err := sc.readJSON(SuiteFile, &m)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("record: %s is not a suite directory: it has no %s", dir, SuiteFile)
	}
	if sc.seal != nil {
		if err := checkPlace(dir, "suite", m.SuiteID); err != nil {
			return nil, err
		}
	}
	s := &Suite{Dir: dir, Manifest: &m, Seal: sc.state()}
	var sum SuiteSummary
	if ok, err := sc.readJSON(SuiteSummaryFile, &sum); err != nil {
		return nil, err
	} else if ok {
		s.Summary = &sum
	}
	return s, nil
}
