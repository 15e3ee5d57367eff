package assertion

import (
	"time"

	"github.com/luxeval/lux"
)

// The options of the constructors are typed by the assertions that take
// them: each constructor accepts its own option type, and each option
// function returns a type that only the assertions with that field accept.
// So an option an assertion has no field for does not compile —
// FileContains("README.md", "## Usage", Flags("i")) is a compile error,
// because file-contains has no flags — instead of failing when the case is
// validated. The identity options (ID, Named, Weight, Threshold) return an
// Option, which every constructor accepts. A JSON case file names its
// fields itself and is checked when it is validated, as before.

// applier is what every option does: set a field of the spec.
type applier interface{ apply(*lux.AssertionSpec) }

// Option is accepted by every constructor: ID, Named, Weight and Threshold.
type Option interface {
	PathOption
	FileMatchesOption
	FileRegexCountOption
	GlobCountOption
	CommandOption
	TranscriptOption
	RegexOption
	ToolCalledOption
	ToolCallCountOption
	ToolCalledWithOption
	InterruptCountOption
	TokensUnderOption
	BudgetOption
	ToolInvocationOption
	ToolResultIsErrorOption
	ToolResultOption
	NoErrorResultsOption
}

// The option types of the constructors, one for each set of fields.
type (
	// PathOption is an option of FileExists, FileContains and
	// JSONPointerEquals: In, or an Option.
	PathOption interface {
		applier
		pathOption()
	}
	// FileMatchesOption is an option of FileMatches and FileRegexSet: In,
	// Flags, or an Option.
	FileMatchesOption interface {
		applier
		fileMatchesOption()
	}
	// FileRegexCountOption is an option of FileRegexCount: In, Flags, Min,
	// Max, or an Option.
	FileRegexCountOption interface {
		applier
		fileRegexCountOption()
	}
	// GlobCountOption is an option of GlobCount: In, Min, Max, or an Option.
	GlobCountOption interface {
		applier
		globCountOption()
	}
	// CommandOption is an option of CommandExitsZero: In, Cwd, Env,
	// InheritEnv, Timeout, ShareCopy, or an Option.
	CommandOption interface {
		applier
		commandOption()
	}
	// TranscriptOption is an option of Contains and NotContains: Against,
	// or an Option.
	TranscriptOption interface {
		applier
		transcriptOption()
	}
	// RegexOption is an option of Regex: Against, Flags, or an Option.
	RegexOption interface {
		applier
		regexOption()
	}
	// ToolCalledOption is an option of ToolCalled: MinTimes, MaxTimes, By,
	// or an Option.
	ToolCalledOption interface {
		applier
		toolCalledOption()
	}
	// ToolCallCountOption is an option of ToolCallCount: Tool, Min, Max,
	// By, or an Option.
	ToolCallCountOption interface {
		applier
		toolCallCountOption()
	}
	// ToolCalledWithOption is an option of ToolCalledWith: ArgsPointer,
	// ArgsValue, ArgsContains, MinTimes, By, or an Option.
	ToolCalledWithOption interface {
		applier
		toolCalledWithOption()
	}
	// InterruptCountOption is an option of InterruptCount: Kind, Min, Max,
	// or an Option.
	InterruptCountOption interface {
		applier
		interruptCountOption()
	}
	// TokensUnderOption is an option of TokensUnder: Component,
	// OnUnavailable, or an Option.
	TokensUnderOption interface {
		applier
		tokensUnderOption()
	}
	// BudgetOption is an option of CostUnder and ArtifactBytesUnder:
	// OnUnavailable, or an Option.
	BudgetOption interface {
		applier
		budgetOption()
	}
	// ToolInvocationOption is an option of ToolInvocation: ResultKind,
	// Occurrence, Input, Output, or an Option.
	ToolInvocationOption interface {
		applier
		toolInvocationOption()
	}
	// ToolResultIsErrorOption is an option of ToolResultIsError: Expected,
	// Occurrence, or an Option.
	ToolResultIsErrorOption interface {
		applier
		toolResultIsErrorOption()
	}
	// ToolResultOption is an option of ToolResultContains and
	// ToolResultJSONPointerEquals: Occurrence, or an Option.
	ToolResultOption interface {
		applier
		toolResultOption()
	}
	// NoErrorResultsOption is an option of NoErrorResults: AllowEmpty, or
	// an Option.
	NoErrorResultsOption interface {
		applier
		noErrorResultsOption()
	}
)

// The types of the options that several assertions take.
type (
	// RootOption (In) is taken by the assertions with a path.
	RootOption interface {
		PathOption
		FileMatchesOption
		FileRegexCountOption
		GlobCountOption
		CommandOption
	}
	// FlagsOption (Flags) is taken by the assertions with a pattern.
	FlagsOption interface {
		FileMatchesOption
		FileRegexCountOption
		RegexOption
	}
	// BoundOption (Min, Max) is taken by the counts.
	BoundOption interface {
		FileRegexCountOption
		GlobCountOption
		ToolCallCountOption
		InterruptCountOption
	}
	// AgainstOption (Against) is taken by the transcript assertions.
	AgainstOption interface {
		TranscriptOption
		RegexOption
	}
	// MinTimesOption (MinTimes) is taken by ToolCalled and ToolCalledWith.
	MinTimesOption interface {
		ToolCalledOption
		ToolCalledWithOption
	}
	// ByOption (By) is taken by the tool call assertions.
	ByOption interface {
		ToolCalledOption
		ToolCallCountOption
		ToolCalledWithOption
	}
	// OnUnavailableOption (OnUnavailable) is taken by the budgets whose
	// measure may be unavailable.
	OnUnavailableOption interface {
		TokensUnderOption
		BudgetOption
	}
	// OccurrenceOption (Occurrence) is taken by the tool-result assertions.
	OccurrenceOption interface {
		ToolInvocationOption
		ToolResultIsErrorOption
		ToolResultOption
	}
)

// setter is the one implementation of every option type: the static type
// an option function returns decides which constructors accept it.
type setter func(*lux.AssertionSpec)

func (f setter) apply(s *lux.AssertionSpec) { f(s) }

func (setter) pathOption()              {}
func (setter) fileMatchesOption()       {}
func (setter) fileRegexCountOption()    {}
func (setter) globCountOption()         {}
func (setter) commandOption()           {}
func (setter) transcriptOption()        {}
func (setter) regexOption()             {}
func (setter) toolCalledOption()        {}
func (setter) toolCallCountOption()     {}
func (setter) toolCalledWithOption()    {}
func (setter) interruptCountOption()    {}
func (setter) tokensUnderOption()       {}
func (setter) budgetOption()            {}
func (setter) toolInvocationOption()    {}
func (setter) toolResultIsErrorOption() {}
func (setter) toolResultOption()        {}
func (setter) noErrorResultsOption()    {}

// field sets the config field key to value.
func field(key string, value any) setter {
	return func(s *lux.AssertionSpec) {
		if s.Config == nil {
			s.Config = map[string]any{}
		}
		s.Config[key] = value
	}
}

// ID sets the assertion's stable id.
func ID(id string) Option { return setter(func(s *lux.AssertionSpec) { s.ID = id }) }

// Named sets the assertion's display name.
func Named(name string) Option { return setter(func(s *lux.AssertionSpec) { s.Name = name }) }

// Weight sets the assertion's weight in the case score.
func Weight(w float64) Option { return setter(func(s *lux.AssertionSpec) { s.Weight = w }) }

// Threshold sets the lowest score that passes.
func Threshold(t float64) Option { return setter(func(s *lux.AssertionSpec) { s.Threshold = t }) }

// In sets the root of a path: InWorkspace (the default) or InRun.
func In(root string) RootOption { return field("in", root) }

// Flags sets regular expression flags: any of "i", "m", "s".
func Flags(f string) FlagsOption { return field("flags", f) }

// Min sets the "min" bound of a count.
func Min(n int) BoundOption { return field("min", n) }

// Max sets the "max" bound of a count.
func Max(n int) BoundOption { return field("max", n) }

// MinTimes sets tool-called's and tool-called-with's "minTimes".
func MinTimes(n int) MinTimesOption { return field("minTimes", n) }

// MaxTimes sets tool-called's "maxTimes".
func MaxTimes(n int) ToolCalledOption { return field("maxTimes", n) }

// By sets whose tool calls count: AnyAgent, MainAgent or Subagent.
func By(scope CallScope) ByOption { return field("by", string(scope)) }

// Tool sets the tool that tool-call-count counts.
func Tool(name string) ToolCallCountOption { return field("tool", name) }

// Against sets what the transcript assertions search: TranscriptFinal or TranscriptAll.
func Against(a string) AgainstOption { return field("against", a) }

// Kind sets the interrupt kind interrupt-count counts.
func Kind(k lux.InterruptKind) InterruptCountOption { return field("kind", string(k)) }

// ArgsPointer sets tool-called-with's "argsJsonPointer".
func ArgsPointer(ptr string) ToolCalledWithOption { return field("argsJsonPointer", ptr) }

// ArgsValue sets tool-called-with's "argsValue".
func ArgsValue(v any) ToolCalledWithOption { return field("argsValue", v) }

// ArgsContains sets tool-called-with's "argsContains".
func ArgsContains(text string) ToolCalledWithOption { return field("argsContains", text) }

// Timeout sets command-exits-zero's "timeout".
func Timeout(d time.Duration) CommandOption { return field("timeout", d.String()) }

// Cwd sets command-exits-zero's working directory, relative to its root.
func Cwd(dir string) CommandOption { return field("cwd", dir) }

// Env sets command-exits-zero's extra environment variables.
func Env(vars map[string]string) CommandOption { return field("env", vars) }

// InheritEnv names variables command-exits-zero passes from the grading
// process's environment on top of the minimal ones.
func InheritEnv(names ...string) CommandOption { return field("inheritEnv", names) }

// ShareCopy makes command-exits-zero run on the copy of the workspace
// named name, shared with the other command assertions of the case that
// name it, in order, instead of a fresh copy of its own.
func ShareCopy(name string) CommandOption { return field("shareCopy", name) }

// Component sets the token count tokens-under bounds.
func Component(c string) TokensUnderOption { return field("component", c) }

// OnUnavailable sets what tokens-under, cost-under and artifact-bytes-under
// do when the measure was not reported: UnavailablePass or UnavailableFail.
func OnUnavailable(v string) OnUnavailableOption { return field("onUnavailable", v) }

// Occurrence sets which results (or calls) a tool-result assertion looks
// at: OccurrenceFirst, OccurrenceLast or OccurrenceAny.
func Occurrence(o string) OccurrenceOption { return field("occurrence", o) }

// Expected sets tool-result-is-error's "expected".
func Expected(isError bool) ToolResultIsErrorOption { return field("expected", isError) }

// ResultKind sets tool-invocation's "result": ResultSuccess, ResultError or ResultAny.
func ResultKind(r string) ToolInvocationOption { return field("result", r) }

// Input sets what tool-invocation requires of the call's input.
func Input(m Match) ToolInvocationOption { return field("input", m.fields()) }

// Output sets what tool-invocation requires of the result's value.
func Output(m Match) ToolInvocationOption { return field("output", m.fields()) }

// AllowEmpty lets no-error-results pass a run without tool results.
func AllowEmpty() NoErrorResultsOption { return field("allowEmpty", true) }

// spec builds the spec of type typ from its required fields and opts.
func spec[O applier](typ string, fields map[string]any, opts []O) lux.AssertionSpec {
	s := lux.AssertionSpec{Type: typ, Config: fields}
	for _, o := range opts {
		o.apply(&s)
	}
	return s
}
