package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

func annotateCommand() command {
	return command{
		name:    "annotate",
		args:    "-out DATASET.json [flags] RUN_DIR",
		summary: "record a person's verdict on a recorded run in a label dataset",
		doc: `Record a person's verdict on the run in RUN_DIR as a label in the dataset
file -out (created if missing): the case's pass or fail (-label), its score
(-score), each assertion's pass or fail and score (-assertion, repeatable),
tags such as a split (-split, -tag), who labelled it (-annotator) and why
(-feedback). With -interactive the run is shown (prompt, trajectory,
artifacts, current grading) and every verdict not given by a flag is asked
on standard input.

The label's id is -id, or one derived from the case, the run and the
annotator, so that one person relabelling a run replaces their label and
two people's labels of one run sit side by side. An id that already labels
another run is refused. The run is stored by its path relative to the
dataset file. Writes hold a lock on DATASET.json.lock, so annotators may
work at once. lux grade -labels DATASET.json reports how the assertions
agree with the labels.`,
		setup: func(fs *flag.FlagSet) action {
			var f annotateFlags
			fs.StringVar(&f.out, "out", "", "the label dataset file to add the label to (required)")
			fs.StringVar(&f.id, "id", "", "the label's id (default: derived from the case, the run and -annotator)")
			fs.StringVar(&f.verdict, "label", "", "the case's verdict: pass or fail")
			fs.StringVar(&f.score, "score", "", "the case's score, in [0, 1]")
			fs.Func("assertion", "an assertion's verdict, ID=pass|fail[:SCORE] (repeatable), e.g. tests-pass=fail or style=pass:0.8", func(s string) error {
				f.assertions = append(f.assertions, s)
				return nil
			})
			fs.StringVar(&f.split, "split", "", "the split the label belongs to (train, test, ...), stored as its first tag")
			fs.Func("tag", "tags, comma-separated (repeatable)", func(s string) error {
				f.tags = append(f.tags, splitList(s)...)
				return nil
			})
			fs.StringVar(&f.annotator, "annotator", "", "who labels the run")
			fs.StringVar(&f.feedback, "feedback", "", "what a grader should have seen in the run")
			fs.StringVar(&f.source, "source", labels.SourceHuman, "human, or synthetic for labels made by a program")
			fs.BoolVar(&f.interactive, "interactive", false, "show the run and ask on standard input for every verdict no flag gives")
			asJSON := jsonFlag(fs, "the label written (schema lux.label/v1)")
			return func(ctx context.Context, e *env, args []string) int {
				if len(args) != 1 {
					return e.usageError("annotate", "give one run directory")
				}
				if f.out == "" {
					return e.usageError("annotate", "-out DATASET.json is required")
				}
				return annotate(e, f, args[0], *asJSON)
			}
		},
	}
}

// annotateFlags are lux annotate's flags.
type annotateFlags struct {
	out, id, verdict, score, split, annotator, feedback, source string
	assertions, tags                                            []string
	interactive                                                 bool
}

// LabelReport is what lux annotate -json prints.
type LabelReport struct {
	Schema   string       `json:"schema"`
	Dataset  string       `json:"dataset"`
	Replaced bool         `json:"replaced"`
	Label    labels.Label `json:"label"`
}

func annotate(e *env, f annotateFlags, runDir string, asJSON bool) int {
	r, err := record.ReadRun(runDir, record.ReadOptions{Events: f.interactive})
	if err != nil {
		e.errorf("annotate: %v", err)
		return ExitUsage
	}
	l, err := labels.ForRun(f.out, runDir, f.annotator)
	if err != nil {
		e.errorf("annotate: %v", err)
		return ExitUsage
	}
	if f.id != "" {
		l.ID = f.id
	}
	l.Source, l.Feedback = f.source, f.feedback
	if f.split != "" {
		l.Tags = append(l.Tags, f.split)
	}
	l.Tags = append(l.Tags, f.tags...)
	known := assertionIDs(r)
	var problems []string
	if f.verdict != "" {
		p, err := parseVerdict(f.verdict)
		if err != nil {
			problems = append(problems, "-label: "+err.Error())
		}
		l.Expected.Passed = &p
	}
	if f.score != "" {
		s, err := parseScore(f.score)
		if err != nil {
			problems = append(problems, "-score: "+err.Error())
		}
		l.Expected.Score = &s
	}
	for _, a := range f.assertions {
		id, al, err := parseAssertionLabel(a, known)
		if err != nil {
			problems = append(problems, "-assertion "+a+": "+err.Error())
			continue
		}
		if l.Expected.Assertions == nil {
			l.Expected.Assertions = map[string]labels.AssertionLabel{}
		}
		l.Expected.Assertions[id] = al
	}
	if len(problems) > 0 {
		return e.usageError("annotate", "%s", strings.Join(problems, "; "))
	}
	if f.interactive {
		if err := askLabel(e, r, &l, f, known); err != nil {
			e.errorf("annotate: %v", err)
			return ExitUsage
		}
	}
	if l.Expected.Empty() {
		return e.usageError("annotate", "nothing to label: give -label, -score, -assertion or -interactive")
	}
	l.LabeledAt = time.Now().UTC()
	replaced, err := labels.Upsert(f.out, l)
	if err != nil {
		e.errorf("annotate: %v", err)
		return ExitUsage
	}
	if asJSON {
		return e.writeJSON(LabelReport{Schema: "lux.label/v1", Dataset: f.out, Replaced: replaced, Label: l})
	}
	what := "added"
	if replaced {
		what = "replaced"
	}
	fmt.Fprintf(e.stdout, "label %s %s in %s (run %s)\n", l.ID, what, f.out, l.Run)
	return ExitOK
}

// assertionIDs are the ids of the run's assertions: those of its grading,
// then those of its case that the grading lacks.
func assertionIDs(r *record.Run) []string {
	var ids []string
	if r.Grading != nil {
		for _, a := range r.Grading.Assertions {
			ids = append(ids, a.ID)
		}
	}
	if r.Case != nil {
		for i, s := range r.Case.Assertions {
			if id := s.EffectiveID(i); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func parseVerdict(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pass", "p":
		return true, nil
	case "fail", "f":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither pass nor fail", s)
}

func parseScore(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q is not a score in [0, 1]", s)
	}
	return v, nil
}

// parseAssertionLabel reads ID=pass|fail[:SCORE]. The id is everything
// before the last '=' (ids such as "file-contains:1" hold colons); it must
// be one of known when the run names its assertions.
func parseAssertionLabel(s string, known []string) (string, labels.AssertionLabel, error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 {
		return "", labels.AssertionLabel{}, errors.New("want ID=pass|fail[:SCORE]")
	}
	id, rest := s[:i], s[i+1:]
	if len(known) > 0 && !slices.Contains(known, id) {
		return "", labels.AssertionLabel{}, fmt.Errorf("the run has no assertion %q (its assertions: %s)", id, strings.Join(known, ", "))
	}
	al, err := parseAssertionAnswer(rest)
	return id, al, err
}

// parseAssertionAnswer reads pass|fail[:SCORE].
func parseAssertionAnswer(s string) (labels.AssertionLabel, error) {
	verdict, score, hasScore := strings.Cut(s, ":")
	p, err := parseVerdict(verdict)
	if err != nil {
		return labels.AssertionLabel{}, err
	}
	al := labels.AssertionLabel{Passed: p}
	if hasScore {
		v, err := parseScore(score)
		if err != nil {
			return labels.AssertionLabel{}, err
		}
		al.Score = &v
	}
	return al, nil
}

func splitList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
