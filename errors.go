package lux

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/go-multierror"
	"github.com/luxeval/lux/internal/naming"
)

// Sentinel errors. Check them with errors.Is; the errors returned by this
// module wrap them with the detail of what went wrong and where.
var (
	// ErrInvalidCase reports a case that fails validation.
	ErrInvalidCase = errors.New("lux: invalid case")
	// ErrInvalidConfig reports a plugin config that fails strict decoding or validation.
	ErrInvalidConfig = errors.New("lux: invalid config")
	// ErrDuplicatePlugin reports a second registration under a name already taken.
	ErrDuplicatePlugin = errors.New("lux: plugin already registered")
	// ErrUnknownPlugin reports a lookup of a name nothing is registered under.
	ErrUnknownPlugin = errors.New("lux: unknown plugin")
	// ErrAnswerMismatch reports an answer whose kind or id differs from the interrupt it answers.
	ErrAnswerMismatch = errors.New("lux: answer does not match interrupt")
	// ErrUnanswered reports an interrupt that an answerer could not answer (no rule matched, say).
	ErrUnanswered = errors.New("lux: interrupt not answered")
	// ErrUnknownField is the kind of a FieldError about a field that a case
	// or config does not declare (a typo, say): errors.Is(err,
	// ErrUnknownField) tells whether a validation error holds one, and
	// errors.As on each of ProblemsOf(err) finds which.
	ErrUnknownField = errors.New("lux: unknown field")
)

// FieldError is one problem with one field of a case or config. Path uses
// dots and indexes as in `assertions[2].id` or `driver.config.idleTimeout`.
type FieldError struct {
	Path    string // field path; empty for the value as a whole
	Problem string // what is wrong, e.g. `required` or `duplicate id "tests-pass"`
	Fix     string // optional: how to fix it
	// Kind is optional: the sentinel this problem is an instance of, such
	// as ErrUnknownField; errors.Is finds it through Unwrap.
	Kind error
}

// Unwrap returns the problem's Kind.
func (e *FieldError) Unwrap() error { return e.Kind }

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString(" (")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Problems collects every problem found while validating a value, so that a
// user sees all of them at once. The zero value is ready to use.
type Problems struct {
	errs []error
}

// Add records a problem at path.
func (p *Problems) Add(path, problem string) {
	p.errs = append(p.errs, &FieldError{Path: path, Problem: problem})
}

// Addf records a problem at path with a formatted message.
func (p *Problems) Addf(path, format string, args ...any) {
	p.Add(path, fmt.Sprintf(format, args...))
}

// AddFix records a problem at path together with how to fix it.
func (p *Problems) AddFix(path, problem, fix string) {
	p.errs = append(p.errs, &FieldError{Path: path, Problem: problem, Fix: fix})
}

// addUnknown records a field that is not declared, with how to fix it.
func (p *Problems) addUnknown(path, fix string) {
	p.errs = append(p.errs, &FieldError{Path: path, Problem: "unknown field", Fix: fix, Kind: ErrUnknownField})
}

// Merge records every problem in err (a Problems error, a multierror, a
// FieldError or any other error), prefixing each field path with prefix.
func (p *Problems) Merge(prefix string, err error) {
	if err == nil {
		return
	}
	for _, e := range ProblemsOf(err) {
		var fe *FieldError
		if errors.As(e, &fe) {
			moved := *fe
			moved.Path = naming.Join(prefix, fe.Path)
			p.errs = append(p.errs, &moved)
			continue
		}
		p.errs = append(p.errs, &FieldError{Path: prefix, Problem: e.Error()})
	}
}

// Len reports how many problems were recorded.
func (p *Problems) Len() int { return len(p.errs) }

// Err returns nil when nothing was recorded, else one error listing every
// problem; it wraps each FieldError and, when sentinel is non-nil, sentinel.
func (p *Problems) Err(sentinel error) error {
	if len(p.errs) == 0 {
		return nil
	}
	m := &multierror.Error{Errors: append([]error(nil), p.errs...), ErrorFormat: listFormat}
	if sentinel == nil {
		return m
	}
	return &problemsError{sentinel: sentinel, m: m}
}

type problemsError struct {
	sentinel error
	m        *multierror.Error
}

func (e *problemsError) Error() string {
	if len(e.m.Errors) == 1 {
		return e.sentinel.Error() + ": " + e.m.Errors[0].Error()
	}
	return e.sentinel.Error() + ":\n" + e.m.Error()
}

func (e *problemsError) Unwrap() []error { return append([]error{e.sentinel}, e.m.Errors...) }

func listFormat(errs []error) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  - " + e.Error()
	}
	return strings.Join(lines, "\n")
}

// ProblemsOf flattens err into the individual problems it carries: the
// FieldErrors of a Problems error or a multierror, or err itself.
func ProblemsOf(err error) []error {
	if err == nil {
		return nil
	}
	var pe *problemsError
	if errors.As(err, &pe) {
		return append([]error(nil), pe.m.Errors...)
	}
	var me *multierror.Error
	if errors.As(err, &me) {
		var out []error
		for _, e := range me.Errors {
			out = append(out, ProblemsOf(e)...)
		}
		return out
	}
	return []error{err}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
