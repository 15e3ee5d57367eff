// Package labels keeps people's verdicts on recorded runs: a label dataset
// is one strict JSON file of labels, each naming a run (by a path relative
// to the dataset file, so the dataset and its runs move together) and what
// a person says its grading should have been: the case's pass or fail, its
// score, and each assertion's pass or fail and score.
//
// Labels are the truth that graders are measured against: lux grade
// -labels reports how today's assertions agree with them, and a grader
// experiment regrades the labelled, frozen runs with candidate rubrics
// and scores each candidate against them. A label therefore carries what
// such an experiment needs: the run's identity (RunID, CaseID) and the
// fingerprint of its evidence as labelled (Evidence), to verify that the
// run is still the one the person saw; tags, to split labels into train
// and test sets; and an annotator, so that labels of several people on
// one run can be told apart and their agreement measured.
//
// Writes go through [Upsert], which holds an exclusive lock on
// DATASET.lock while it reads, changes and atomically replaces the file,
// so concurrent annotators never lose each other's labels.
package labels

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/record"
)

// SchemaVersion is the version of the dataset format this package writes
// and reads.
const SchemaVersion = 1

// Sources of a label.
const (
	SourceHuman     = "human"     // a person's verdict (the default)
	SourceSynthetic = "synthetic" // made by a program, e.g. seeded from a known-good grading
)

// Errors. Every error of Load and Upsert that is about the content of the
// dataset matches ErrInvalid, and a refused relabelling ErrRelabel.
var (
	// ErrInvalid: the dataset (or a label given to Upsert) breaks the
	// format; the error lists every problem with its field path.
	ErrInvalid = errors.New("labels: invalid dataset")
	// ErrRelabel: an id already labels another run.
	ErrRelabel = errors.New("labels: id already labels another run")
)

// Dataset is a label file: schemaVersion and the labels, sorted by id,
// ids unique.
type Dataset struct {
	SchemaVersion int     `json:"schemaVersion"`
	Labels        []Label `json:"labels"`
}

// Label is one person's verdict on one recorded run.
type Label struct {
	// ID names the label; letters, digits, '.', '_' and '-'.
	ID string `json:"id"`
	// Run is the run directory relative to the directory of the dataset
	// file, '/'-separated ("../.lux-runs/hello/claude-code/20260101T120000Z").
	Run string `json:"run"`
	// CaseID and RunID are the run's, from its run.json: a label follows
	// its run, and an experiment clusters labels by case.
	CaseID string `json:"caseId"`
	RunID  string `json:"runId"`
	// Evidence is the fingerprint of the run's evidence when it was
	// labelled (from run.json; nil for runs recorded before fingerprints):
	// whoever grades the run against this label checks it is unchanged.
	Evidence *record.Evidence `json:"evidence,omitempty"`
	// Tags group labels, e.g. a split ("train", "test"); no duplicates.
	Tags     []string `json:"tags"`
	Expected Expected `json:"expected"`
	// Source is SourceHuman or SourceSynthetic.
	Source    string    `json:"source"`
	Annotator string    `json:"annotator,omitempty"`
	LabeledAt time.Time `json:"labeledAt"`
	// Feedback is the person's words on the run: what a grader should
	// have seen.
	Feedback string `json:"feedback,omitempty"`
}

// Expected is what the grading of the run should be. At least one of its
// fields is set; whatever is left out is not labelled (neither pass nor
// fail).
type Expected struct {
	Passed     *bool                     `json:"casePassed,omitempty"`
	Score      *float64                  `json:"caseScore,omitempty"`
	Assertions map[string]AssertionLabel `json:"assertions,omitempty"`
}

// AssertionLabel is the expected outcome of one assertion, by its id.
type AssertionLabel struct {
	Passed bool     `json:"passed"`
	Score  *float64 `json:"score,omitempty"`
}

// Empty reports whether nothing is labelled.
func (e Expected) Empty() bool {
	return e.Passed == nil && e.Score == nil && len(e.Assertions) == 0
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Validate reports every problem of d, each with its field path.
func (d *Dataset) Validate() error {
	var p lux.Problems
	if d.SchemaVersion != SchemaVersion {
		p.AddFix("schemaVersion", fmt.Sprintf("is %d, this lux reads %d", d.SchemaVersion, SchemaVersion), "write a dataset with lux annotate")
	}
	seen := map[string]bool{}
	for i, l := range d.Labels {
		at := fmt.Sprintf("labels[%d]", i)
		p.Merge(at, l.Validate())
		switch {
		case seen[l.ID]:
			p.Add(at+".id", fmt.Sprintf("duplicate id %q", l.ID))
		case i > 0 && l.ID < d.Labels[i-1].ID:
			p.AddFix(at+".id", fmt.Sprintf("%q comes after %q; ids must be sorted", l.ID, d.Labels[i-1].ID), "sort the labels by id (lux annotate writes them sorted)")
		}
		seen[l.ID] = true
	}
	return p.Err(ErrInvalid)
}

// Validate reports every problem of l, with field paths relative to it.
func (l *Label) Validate() error {
	var p lux.Problems
	if !idRE.MatchString(l.ID) {
		p.AddFix("id", fmt.Sprintf("%q is not a label id", l.ID), "use letters, digits, '.', '_' and '-'")
	}
	switch {
	case l.Run == "":
		p.Add("run", "required")
	case strings.Contains(l.Run, `\`) || path.IsAbs(l.Run) || filepath.IsAbs(l.Run) || path.Clean(l.Run) != l.Run || l.Run == ".":
		p.AddFix("run", fmt.Sprintf("%q is not a clean relative '/'-separated path", l.Run), "give the run directory relative to the dataset file's directory")
	}
	if l.CaseID == "" {
		p.Add("caseId", "required")
	}
	if l.RunID == "" {
		p.Add("runId", "required")
	}
	tags := map[string]bool{}
	for i, t := range l.Tags {
		switch {
		case strings.TrimSpace(t) == "" || strings.ContainsAny(t, ",\n"):
			p.Add(fmt.Sprintf("tags[%d]", i), fmt.Sprintf("%q is not a tag (blank, or holds a comma or newline)", t))
		case tags[t]:
			p.Add(fmt.Sprintf("tags[%d]", i), fmt.Sprintf("duplicate tag %q", t))
		}
		tags[t] = true
	}
	if l.Expected.Empty() {
		p.AddFix("expected", "labels nothing", "give the case's verdict, its score or an assertion's verdict")
	}
	checkScore(&p, "expected.caseScore", l.Expected.Score)
	for _, id := range slices.Sorted(maps.Keys(l.Expected.Assertions)) {
		if strings.TrimSpace(id) == "" {
			p.Add("expected.assertions", "an assertion id is blank")
		}
		s := l.Expected.Assertions[id].Score
		checkScore(&p, "expected.assertions."+id+".score", s)
	}
	if l.Source != SourceHuman && l.Source != SourceSynthetic {
		p.AddFix("source", fmt.Sprintf("is %q", l.Source), fmt.Sprintf("use %q or %q", SourceHuman, SourceSynthetic))
	}
	if l.LabeledAt.IsZero() {
		p.Add("labeledAt", "required")
	}
	return p.Err(nil)
}

func checkScore(p *lux.Problems, at string, s *float64) {
	if s != nil && !(*s >= 0 && *s <= 1) {
		p.AddFix(at, fmt.Sprintf("is %v", *s), "give a score in [0, 1]")
	}
}

// Load reads the dataset at path strictly: unknown fields, values of the
// wrong type and every rule of Validate are errors naming the field path.
// A missing file is an error matching fs.ErrNotExist.
func Load(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes and validates a dataset read from name.
func Parse(name string, data []byte) (*Dataset, error) {
	var d Dataset
	if err := lux.DecodeConfig(json.RawMessage(data), &d, d.Validate); err != nil {
		return nil, &invalidError{name: name, problems: lux.ProblemsOf(err)}
	}
	if d.Labels == nil {
		d.Labels = []Label{}
	}
	return &d, nil
}

// invalidError is a dataset's problems, each with its field path.
type invalidError struct {
	name     string
	problems []error
}

func (e *invalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "labels: %s: ", e.name)
	if len(e.problems) == 1 {
		b.WriteString(e.problems[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems:", len(e.problems))
	for _, p := range e.problems {
		b.WriteString("\n  - " + p.Error())
	}
	return b.String()
}

func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// Unwrap gives the problems (each a *lux.FieldError where it has a path).
func (e *invalidError) Unwrap() []error { return e.problems }

// Find returns the label with id, or nil.
func (d *Dataset) Find(id string) *Label {
	i, ok := slices.BinarySearchFunc(d.Labels, id, func(l Label, id string) int { return strings.Compare(l.ID, id) })
	if !ok {
		return nil
	}
	return &d.Labels[i]
}

// RunDir is the run directory of l for the dataset file at datasetPath.
func RunDir(datasetPath string, l Label) string {
	return filepath.Join(filepath.Dir(datasetPath), filepath.FromSlash(l.Run))
}

// RelativeRun is runDir as a label's Run for the dataset file at
// datasetPath: relative to the dataset's directory, '/'-separated.
func RelativeRun(datasetPath, runDir string) (string, error) {
	base, err := filepath.Abs(filepath.Dir(datasetPath))
	if err != nil {
		return "", fmt.Errorf("labels: %w", err)
	}
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return "", fmt.Errorf("labels: %w", err)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return "", fmt.Errorf("labels: run %s has no path relative to the dataset's directory %s: %w", runDir, base, err)
	}
	return filepath.ToSlash(rel), nil
}

// ForRun starts a label for the run in runDir, to go into the dataset
// file at datasetPath: Run, CaseID, RunID, Evidence and Source (human)
// are filled in from the run's run.json, and ID is [DefaultID]. The
// caller adds the verdicts, tags, annotator and time.
func ForRun(datasetPath, runDir, annotator string) (Label, error) {
	meta, _, err := record.ReadMetadata(runDir)
	if err != nil {
		return Label{}, err
	}
	rel, err := RelativeRun(datasetPath, runDir)
	if err != nil {
		return Label{}, err
	}
	l := Label{Run: rel, CaseID: meta.CaseID, RunID: meta.RunID, Evidence: meta.Evidence,
		Source: SourceHuman, Annotator: annotator, Tags: []string{}}
	l.ID = DefaultID(l)
	return l, nil
}

// DefaultID is the id lux annotate gives a label without -id: the case id,
// the run directory's name and a hash of Run (so two runs of one case in
// directories of the same name stay apart), then the annotator when there
// is one, so that several people's labels of one run sit side by side;
// characters other than letters, digits, '_', '.' and '-' become '-'.
func DefaultID(l Label) string {
	id := l.CaseID + "-" + path.Base(l.Run) + "-" + digest.Bytes([]byte(l.Run))[:10]
	if l.Annotator != "" {
		id += "-" + l.Annotator
	}
	return sanitizeRE.ReplaceAllString(id, "-")
}

var sanitizeRE = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
