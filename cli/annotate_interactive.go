package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luxeval/lux/answerer/terminal"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// askLabel shows the run on stdout and asks, one line per answer on
// standard input, for every part of the label that no flag gave: the
// case's verdict and score, each assertion's verdict, tags, annotator and
// feedback; an empty answer leaves that part unlabelled. A wrong answer is
// asked again; input that ends before the last question is an error.
func askLabel(e *env, r *record.Run, l *labels.Label, f annotateFlags, known []string) error {
	// Piped answers are not echoed by a terminal: echo them, so that the
	// transcript reads as a dialogue.
	return askLabelFrom(bufio.NewReader(os.Stdin), e.stdout, !terminal.StdinIsTerminal(), r, l, f, known)
}

func askLabelFrom(in *bufio.Reader, out io.Writer, echo bool, r *record.Run, l *labels.Label, f annotateFlags, known []string) error {
	if r.Case != nil {
		fmt.Fprintln(out, "prompt:")
		for _, line := range strings.Split(strings.TrimRight(r.Case.Prompt, "\n"), "\n") {
			fmt.Fprintln(out, "  "+line)
		}
	}
	writeRunDetail(out, r, viewOptions{events: 20})
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Your verdict on this run (an empty answer leaves that part unlabelled):")

	ask := func(question string, parse func(string) error) error {
		for {
			fmt.Fprint(out, question+" ")
			line, err := in.ReadString('\n')
			if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("input ended before the answer to %q", strings.TrimSpace(question))
				}
				return err
			}
			line = strings.TrimSpace(line)
			if echo {
				fmt.Fprintln(out, line)
			}
			if line == "" {
				return nil
			}
			if perr := parse(line); perr != nil {
				fmt.Fprintf(out, "  %v; try again\n", perr)
				if err != nil { // no more input to try again with
					return fmt.Errorf("answer to %q: %w", strings.TrimSpace(question), perr)
				}
				continue
			}
			return nil
		}
	}
	graded := map[string]record.AssertionOutcome{}
	if r.Grading != nil {
		for _, a := range r.Grading.Assertions {
			graded[a.ID] = a
		}
	}
	if f.verdict == "" {
		q := fmt.Sprintf("case verdict, pass or fail (graded %s)?", record.RunVerdict(r.Metadata, r.Grading))
		if err := ask(q, func(s string) error {
			p, err := parseVerdict(s)
			l.Expected.Passed = &p
			return err
		}); err != nil {
			return err
		}
	}
	if f.score == "" {
		q := fmt.Sprintf("case score in [0, 1] (graded %s)?", scoreText(r.Grading))
		if err := ask(q, func(s string) error {
			v, err := parseScore(s)
			l.Expected.Score = &v
			return err
		}); err != nil {
			return err
		}
	}
	for _, id := range known {
		if _, given := l.Expected.Assertions[id]; given {
			continue
		}
		was := "not graded"
		if a, ok := graded[id]; ok {
			was = fmt.Sprintf("graded %s, score %.2f", passFail(a.Passed), a.Score)
			if a.Error != "" {
				was = "could not grade"
			}
		}
		q := fmt.Sprintf("assertion %s: pass or fail, optionally :SCORE (%s)?", id, was)
		if err := ask(q, func(s string) error {
			al, err := parseAssertionAnswer(s)
			if err != nil {
				return err
			}
			if l.Expected.Assertions == nil {
				l.Expected.Assertions = map[string]labels.AssertionLabel{}
			}
			l.Expected.Assertions[id] = al
			return nil
		}); err != nil {
			return err
		}
	}
	if f.split == "" && len(f.tags) == 0 {
		if err := ask("tags, comma-separated (a split first: train, test)?", func(s string) error {
			l.Tags = append(l.Tags, splitList(s)...)
			return nil
		}); err != nil {
			return err
		}
	}
	if f.annotator == "" && f.id == "" {
		if err := ask("annotator?", func(s string) error {
			l.Annotator = s
			l.ID = labels.DefaultID(*l)
			return nil
		}); err != nil {
			return err
		}
	}
	if f.feedback == "" {
		if err := ask("feedback, one line?", func(s string) error {
			l.Feedback = s
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func passFail(p bool) string {
	if p {
		return "pass"
	}
	return "fail"
}
