package stats

import (
	"fmt"
	"strings"
)

// Code names a kind of error or warning of this package. Codes are stable
// and machine-readable ("too-few-units", "few-clusters"); a program that
// shows or stores a problem keys on its Code, never on its text.
type Code string

// Error codes: the Code of an [Error], one per sentinel below.
const (
	CodeNonFinite   Code = "non-finite"
	CodeLength      Code = "mismatched-lengths"
	CodeTooFewUnits Code = "too-few-units"
	CodeLevel       Code = "level"
	CodeMethod      Code = "method"
	CodeDomain      Code = "domain"
	CodeConfig      Code = "config"
	CodeArgument    Code = "argument"
)

// Warning codes: the Code of a [Warning].
const (
	// WarnFewClusters: clusters were given and there are fewer than
	// FewClusters of them. Cluster-robust intervals over-reject with few
	// clusters (Cameron, Gelbach & Miller 2008), and the percentile cluster
	// bootstrap under-covers.
	WarnFewClusters Code = "few-clusters"
	// WarnFewUnits: an interval that relies on a normal approximation or on
	// the bootstrap was computed from fewer than FewUnits independent
	// observations.
	WarnFewUnits Code = "few-units"
	// WarnDegenerate: the sample shows no variation between units, so the
	// interval has zero width and says nothing about uncertainty; or a
	// variance component was negative and clamped to zero.
	WarnDegenerate Code = "degenerate"
	// WarnFewResamples: a percentile bootstrap with fewer than 1000
	// resamples; its tail quantiles are unstable.
	WarnFewResamples Code = "few-resamples"
)

// labels are the words each message starts with, after the package name.
var codeLabels = map[Code]string{
	CodeNonFinite:    "non-finite value",
	CodeLength:       "mismatched lengths",
	CodeTooFewUnits:  "too few independent units",
	CodeLevel:        "confidence level out of range",
	CodeMethod:       "method does not apply",
	CodeDomain:       "value outside the method's support",
	CodeConfig:       "invalid config",
	CodeArgument:     "invalid argument",
	WarnFewClusters:  "few clusters",
	WarnFewUnits:     "few units",
	WarnDegenerate:   "degenerate sample",
	WarnFewResamples: "few bootstrap resamples",
}

// WarningCodes returns every code a [Warning] can carry, so that a program
// mapping them to its own vocabulary can check it misses none.
func WarningCodes() []Code {
	return []Code{WarnFewClusters, WarnFewUnits, WarnDegenerate, WarnFewResamples}
}

// Sentinel errors. Every error this package returns is an [*Error] (or,
// for a Config with several invalid fields, several joined) that matches
// the sentinel of its Code with [errors.Is]; [errors.As] gives its Code
// and Detail.
var (
	// ErrNonFinite: an input value is NaN or ±Inf.
	ErrNonFinite = &Error{Code: CodeNonFinite}
	// ErrLength: slices that must correspond position by position have
	// different lengths (values and clusters, before and after).
	ErrLength = &Error{Code: CodeLength}
	// ErrTooFewUnits: fewer independent units (observations, or clusters when
	// clusters are given) than Config.MinUnits.
	ErrTooFewUnits = &Error{Code: CodeTooFewUnits}
	// ErrLevel: a confidence level outside [0.5, 0.999] ([CheckLevel]).
	ErrLevel = &Error{Code: CodeLevel}
	// ErrMethod: an unknown method, or a method that does not apply to the
	// data as given (Wilson with clusters or on paired differences).
	ErrMethod = &Error{Code: CodeMethod}
	// ErrDomain: a value outside the support the method requires (Wilson
	// needs exactly 0 or 1, Hoeffding needs [0, 1]).
	ErrDomain = &Error{Code: CodeDomain}
	// ErrConfig: a Config field other than Method and Level is invalid
	// (negative Resamples or MinUnits, MinUnits of 1, Resamples above
	// MaxResamples).
	ErrConfig = &Error{Code: CodeConfig}
	// ErrArgument: a count or probability argument is out of range
	// (for example pass@k with fewer attempts than k).
	ErrArgument = &Error{Code: CodeArgument}
)

// Error is why a result could not be computed: its kind and the detail of
// which value was wrong and what to use instead. Its text reads
// "stats: too few independent units: 3 cases, need at least 5
// (Config.MinUnits)".
type Error struct {
	Code   Code
	Detail string // empty for the sentinels
}

func (e *Error) Error() string { return "stats: " + e.Message() }

// Message is the error's text without the package name, for a report that
// has already said where it comes from.
func (e *Error) Message() string { return message(e.Code, e.Detail) }

// Is reports whether target is an Error of the same Code, so that
// errors.Is(err, ErrTooFewUnits) matches every too-few-units error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Warning is a caveat on a result: the result was computed, but read it
// with care. It is never returned as the error of a call; results carry
// their warnings (Interval.Warnings, Repeats.Warnings).
type Warning struct {
	Code   Code
	Detail string // what was found and what to do about it
}

// Error gives the warning's text with the package name, as in "stats: few
// clusters: 8 clusters (fewer than 20): ...", so that a warning can be
// printed, joined or logged wherever an error can.
func (w Warning) Error() string { return "stats: " + w.Message() }

// Message is the warning's text without the package name, as in "few
// clusters: 8 clusters (fewer than 20): ...".
func (w Warning) Message() string { return message(w.Code, w.Detail) }

func warnf(code Code, format string, args ...any) Warning {
	return Warning{Code: code, Detail: fmt.Sprintf(format, args...)}
}

func message(code Code, detail string) string {
	label, ok := codeLabels[code]
	if !ok {
		label = string(code)
	}
	if detail == "" {
		return label
	}
	return label + ": " + detail
}

// Message returns err's text as a report shows it next to the result it
// explains: an [*Error]'s Message, the Messages of several joined *Errors
// (an invalid Config with more than one problem) joined by "; ", and any
// other error's text as it is (an error wrapping an *Error keeps what it
// adds, package names included).
func Message(err error) string {
	// Not errors.As: the context an error wrapping an *Error adds stays.
	if e, ok := err.(*Error); ok {
		return e.Message()
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		parts := make([]string, 0, len(joined.Unwrap()))
		for _, e := range joined.Unwrap() {
			se, ok := e.(*Error)
			if !ok {
				return err.Error() // not only this package's errors: its text as it is
			}
			parts = append(parts, se.Message())
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}
