package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/casefiles"
	"github.com/luxeval/lux/orchestrator"
)

func validateCommand() command {
	return command{
		name:    "validate",
		args:    casesArgs,
		summary: "check cases against the registry without running anything",
		doc: `Check every case file: its JSON, its fields, and each plugin config against
the registered drivers, answerers and assertions. Every problem of every file
is reported at once, with its field path. Nothing runs. Exit status 2 when a
case is invalid.`,
		setup: func(fs *flag.FlagSet) action {
			var f caseFlags
			var proj projectFlags
			f.register(fs)
			proj.register(fs, true)
			asJSON := jsonFlag(fs, "the result (schema lux.validate/v1)")
			return func(_ context.Context, e *env, args []string) int {
				var opts orchestrator.Options
				if code := f.defaults(e, &opts); code != ExitOK {
					return code
				}
				if code := proj.defaultCases(e, &args); code != ExitOK {
					return code
				}
				if code := proj.apply(e, &opts); code != ExitOK {
					return code
				}
				o := orchestrator.New(e.reg, opts)
				// Each case is validated against the registry as it is
				// decoded, so a misspelt field hides none of its other
				// problems; a case the tags leave out is not validated.
				files, errs := casefiles.Read(casePaths(args), func(c *lux.Case) error {
					if len(f.tags) > 0 && !casefiles.HasAnyTag(c, f.tags) {
						return nil
					}
					return o.Validate(c)
				})
				if len(errs) > 0 {
					e.errorf("validate: %v", errors.Join(errs...))
					return ExitUsage
				}
				return validateCases(e, files, f.tags, *asJSON)
			}
		},
	}
}

// ValidateReport is what `lux validate -json` prints.
type ValidateReport struct {
	Schema  string          `json:"schema"` // "lux.validate/v1"
	Cases   []CaseValidated `json:"cases"`
	Invalid int             `json:"invalid"` // how many cases have problems
}

// CaseValidated is one case file's validation.
type CaseValidated struct {
	ID       string    `json:"id,omitempty"` // empty when the file could not be read as a case
	Path     string    `json:"path"`         // relative to the working directory when under it
	Valid    bool      `json:"valid"`
	Problems []Problem `json:"problems,omitempty"`
	// Warnings are what makes a valid case unable to do its job, such as
	// having no assertions (its runs are never graded).
	Warnings []string `json:"warnings,omitempty"`
}

// NoAssertionsWarning is the warning of a case that has no assertions.
const NoAssertionsWarning = `no assertions: every run of this case is recorded but ungraded (no verdict), and lux run exits 1; add one, such as {"type": "run-succeeded"}`

// Problem is one problem of a case file: the field it is at (empty for the
// file as a whole), what is wrong, and how to fix it when known.
type Problem struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

func problemsOf(err error) []Problem {
	var out []Problem
	for _, e := range lux.ProblemsOf(err) {
		var fe *lux.FieldError
		if errors.As(e, &fe) {
			out = append(out, Problem{Field: fe.Path, Message: fe.Problem, Fix: fe.Fix})
			continue
		}
		out = append(out, Problem{Message: e.Error()})
	}
	return out
}

func (p Problem) String() string {
	return (&lux.FieldError{Path: p.Field, Problem: p.Message, Fix: p.Fix}).Error()
}

// validateCases reports every problem of every case file as read and
// validated against the registry (the case's own and its plugins'), each
// once.
func validateCases(e *env, files []casefiles.File, tags []string, asJSON bool) int {
	rep := ValidateReport{Schema: "lux.validate/v1", Cases: []CaseValidated{}}
	for _, f := range files {
		v := CaseValidated{Path: displayPath(f.Path), Valid: true}
		err := f.Err
		if err == nil {
			if len(tags) > 0 && !casefiles.HasAnyTag(f.Case, tags) {
				continue
			}
			v.ID = f.Case.CanonicalID()
			if len(f.Case.Assertions) == 0 {
				v.Warnings = append(v.Warnings, NoAssertionsWarning)
			}
		}
		if err != nil {
			v.Valid = false
			v.Problems = problemsOf(err)
			rep.Invalid++
		}
		rep.Cases = append(rep.Cases, v)
	}
	if asJSON {
		e.writeJSON(rep)
	} else {
		for _, v := range rep.Cases {
			if v.Valid {
				fmt.Fprintf(e.stdout, "%s: ok (%s)\n", v.Path, v.ID)
				for _, w := range v.Warnings {
					fmt.Fprintf(e.stdout, "  warning: %s\n", w)
				}
				continue
			}
			lines := make([]string, len(v.Problems))
			for i, p := range v.Problems {
				lines[i] = p.String()
			}
			fmt.Fprintln(e.stdout, casefiles.FileError(v.Path, lines))
		}
		if rep.Invalid > 0 {
			fmt.Fprintf(e.stdout, "%d of %d case files are invalid\n", rep.Invalid, len(rep.Cases))
		}
	}
	if rep.Invalid > 0 {
		return ExitUsage
	}
	return ExitOK
}
