package report

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	luxlabels "github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// LabelSet is a label dataset (package labels) with the path of its
// file, which its labels' runs are relative to. With Options.Labels, a
// run page shows the labels of its run beside its grading.
type LabelSet struct {
	// Path is the dataset file's path.
	Path    string
	Dataset *luxlabels.Dataset

	once  sync.Once
	byDir map[string][]luxlabels.Label // by the run's absolute directory
}

// LoadLabels reads the label dataset at path.
func LoadLabels(path string) (*LabelSet, error) {
	d, err := luxlabels.Load(path)
	if err != nil {
		return nil, err
	}
	return &LabelSet{Path: path, Dataset: d}, nil
}

// forRun returns the labels of the run in dir, by annotator then id.
func (s *LabelSet) forRun(dir string) []luxlabels.Label {
	if s == nil || s.Dataset == nil {
		return nil
	}
	s.once.Do(func() {
		s.byDir = map[string][]luxlabels.Label{}
		for _, l := range s.Dataset.Labels {
			if abs, err := filepath.Abs(luxlabels.RunDir(s.Path, l)); err == nil {
				s.byDir[abs] = append(s.byDir[abs], l)
			}
		}
		for _, ls := range s.byDir {
			slices.SortFunc(ls, func(a, b luxlabels.Label) int {
				if a.Annotator != b.Annotator {
					return strings.Compare(a.Annotator, b.Annotator)
				}
				return strings.Compare(a.ID, b.ID)
			})
		}
	})
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	return s.byDir[abs]
}

// RunLabel is one person's label of a run, as its run page shows it
// beside the grading.
type RunLabel struct {
	ID        string
	Annotator string // "" when the label names none
	Source    string // human or synthetic
	LabeledAt string
	Feedback  string
	// Case is the label's verdict on the case (pass, fail, "" when not
	// labelled) and CaseScore its score ("" when not labelled);
	// CaseDisagrees is set when Case is not the grading's verdict.
	Case          string
	CaseScore     string
	CaseDisagrees bool
	// Stale says why the label is not compared with this grading (it
	// labels another run, or the run's evidence changed since); "" when
	// it is.
	Stale string
	// Unmatched are the labelled assertions the grading does not have.
	Unmatched []string
}

// AssertionLabelCell is one label's verdict on one assertion.
type AssertionLabelCell struct {
	Annotator string
	Verdict   string // pass or fail
	Score     string // "" when not labelled
	// Disagrees is set when Verdict is not the grader's (an assertion the
	// grader could not grade is not compared).
	Disagrees bool
	// NotCompared is set when the label is not compared with this
	// grading (RunLabel.Stale).
	NotCompared bool
}

// LabelsMethod says how a run page compares labels with the grading.
const LabelsMethod = "A label disagrees when its pass or fail differs from the recorded grading's (the case's verdict, or the assertion's); scores are shown, not compared; labels of another run or of evidence that changed since are shown and not compared"

// addLabels puts the labels of the run r beside its grading on p.
func addLabels(p *RunPage, r *record.Run, set *LabelSet, o Options) {
	ls := set.forRun(r.Dir)
	if len(ls) == 0 {
		return
	}
	p.LabelsFrom, p.LabelsMethod = set.Path, LabelsMethod
	rows := map[string]int{}
	for i, a := range p.Assertions {
		rows[a.ID] = i
	}
	g := r.Grading
	for _, l := range ls {
		rl := RunLabel{ID: l.ID, Annotator: l.Annotator, Source: l.Source, LabeledAt: stamp(l.LabeledAt), Feedback: clip(l.Feedback, o.MaxText)}
		switch {
		case l.RunID != r.Metadata.RunID:
			rl.Stale = fmt.Sprintf("labels the run %s, not this run %s", l.RunID, r.Metadata.RunID)
		case l.Evidence != nil && (r.Metadata.Evidence == nil || *r.Metadata.Evidence != *l.Evidence):
			rl.Stale = "the run's evidence fingerprint differs from the one labelled"
		case g == nil:
			rl.Stale = "the run has no grading to compare with"
		}
		if e := l.Expected.Passed; e != nil {
			rl.Case = verdictText(*e)
			rl.CaseDisagrees = rl.Stale == "" && g.Passed != nil && *g.Passed != *e
		}
		if sc := l.Expected.Score; sc != nil {
			rl.CaseScore = score(*sc)
		}
		for _, id := range slices.Sorted(maps.Keys(l.Expected.Assertions)) {
			al := l.Expected.Assertions[id]
			i, ok := rows[id]
			if !ok {
				rl.Unmatched = append(rl.Unmatched, id)
				continue
			}
			cell := AssertionLabelCell{Annotator: l.Annotator, Verdict: verdictText(al.Passed), NotCompared: rl.Stale != ""}
			if al.Score != nil {
				cell.Score = score(*al.Score)
			}
			if a := findAssertion(g, id); rl.Stale == "" && a != nil && a.Error == "" {
				cell.Disagrees = a.Passed != al.Passed
			}
			p.Assertions[i].Labels = append(p.Assertions[i].Labels, cell)
		}
		p.Labels = append(p.Labels, rl)
	}
}

func verdictText(passed bool) string {
	if passed {
		return "pass"
	}
	return "fail"
}

func findAssertion(g *record.Grading, id string) *record.AssertionOutcome {
	if g == nil {
		return nil
	}
	for i := range g.Assertions {
		if g.Assertions[i].ID == id {
			return &g.Assertions[i]
		}
	}
	return nil
}
