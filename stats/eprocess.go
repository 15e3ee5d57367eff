package stats

import (
	"errors"
	"math"
)

// SignTestOptions configures a [SignTest]. Its zero value is a two-sided
// test at level 0.95 (α = 0.05) with a uniform prior, no futility rule and
// no cap.
type SignTestOptions struct {
	Alternative Alternative `json:"alternative,omitempty"` // "" means TwoSided
	Level       float64     `json:"level,omitempty"`       // 1 − α; 0 means 0.95, else in [0.5, 0.999]
	// PriorA and PriorB are the Beta(a, b) mixing distribution over
	// p = P(candidate wins | discordant); 0 means 1 (uniform). Center it on
	// the effect you plan for (a/(a+b) ≈ p₁) and raise a+b to concentrate
	// it; the guarantee holds for every choice, only the power changes.
	PriorA float64 `json:"prior_a,omitempty"`
	PriorB float64 `json:"prior_b,omitempty"`
	// MinPairs: no decision before this many pairs (0: none).
	MinPairs int `json:"min_pairs,omitempty"`
	// MaxPairs: stop with MaxReached after this many pairs (0: no cap).
	MaxPairs int `json:"max_pairs,omitempty"`
	// Futility is the smallest win rate p₁ ∈ (0.5, 1) worth detecting; 0
	// means no futility rule. The test stops as Futile once a second
	// e-process, against "every discordant pair is won with probability
	// at least p₁" (Greater; at most 1 − p₁ for Less; both for TwoSided),
	// reaches 1/α: the chance of giving up on an effect that large is at
	// most α, even when it differs from case to case.
	Futility float64 `json:"futility,omitempty"`
}

// resolve applies the defaults and reports every invalid field.
func (o SignTestOptions) resolve() (SignTestOptions, error) {
	var errs []error
	alt, err := resolveAlternative(o.Alternative)
	errs = append(errs, err)
	o.Alternative = alt
	level, err := CheckLevel(o.Level)
	errs = append(errs, err)
	o.Level = level
	for _, f := range []struct {
		name string
		v    *float64
	}{{"PriorA", &o.PriorA}, {"PriorB", &o.PriorB}} {
		switch {
		case *f.v == 0:
			*f.v = 1
		case !(*f.v > 0) || math.IsInf(*f.v, 0):
			errs = append(errs, errorf(CodeConfig, "%s is %v, want 0 (default 1) or a finite positive value", f.name, *f.v))
		}
	}
	if o.MinPairs < 0 || o.MaxPairs < 0 || (o.MaxPairs > 0 && o.MinPairs > o.MaxPairs) {
		errs = append(errs, errorf(CodeConfig, "MinPairs %d and MaxPairs %d: want 0 ≤ MinPairs ≤ MaxPairs, or MaxPairs 0 (no cap)", o.MinPairs, o.MaxPairs))
	}
	if o.Futility != 0 && !(o.Futility > 0.5 && o.Futility < 1) {
		errs = append(errs, errorf(CodeConfig, "Futility is %v, want 0 (none) or a win rate in (0.5, 1)", o.Futility))
	}
	return o, errors.Join(errs...)
}

// SignTestState is everything a [SignTest] needs to continue: persist it
// (it is plain JSON) and pass it to [ResumeSignTest] to go on exactly
// where the test stopped. Options holds the resolved options.
type SignTestState struct {
	Options SignTestOptions `json:"options"`
	Pairs   int             `json:"pairs"`  // pairs observed, concordant ones included
	Wins    int             `json:"wins"`   // candidate passed, baseline failed
	Losses  int             `json:"losses"` // baseline passed, candidate failed
	// MaxLogE is ln of the running maximum of the e-process (≥ 0).
	MaxLogE float64 `json:"max_log_e"`
	// Lower and Upper are the running intersection of the confidence
	// sequence of the win rate; [0, 1] before any discordant pair.
	Lower float64    `json:"lower"`
	Upper float64    `json:"upper"`
	Stop  StopReason `json:"stop"`
	// Direction is the side of the evidence when the e-process first
	// reached 1/α: Greater when the candidate had more wins than losses
	// then, Less otherwise; empty before.
	Direction Alternative `json:"direction,omitempty"`
	// FutileBelowLogE and FutileAboveLogE are ln of the running maxima of
	// the futility e-processes against p ≥ p₁ and p ≤ 1 − p₁ (0 without
	// a futility rule).
	FutileBelowLogE float64 `json:"futile_below_log_e,omitempty"`
	FutileAboveLogE float64 `json:"futile_above_log_e,omitempty"`
}

// SignTestResult is the state of a [SignTest] after its last pair.
type SignTestResult struct {
	Method      Method
	Alternative Alternative
	Level       float64 // 1 − α; the threshold is 1/α
	Pairs       int     // pairs used: observed up to the decision
	Wins        int     // discordant pairs the candidate won
	Losses      int     // discordant pairs the baseline won
	// EValue is the e-process at the last pair and LogEValue its log;
	// EValue is capped at math.MaxFloat64. MaxEValue is its running
	// maximum. A stopped test's EValue is frozen, so it can be combined
	// with other candidates' by [EBenjaminiHochberg].
	EValue, LogEValue, MaxEValue float64
	// PValue is the anytime-valid p-value min(1, 1/MaxEValue).
	PValue float64
	// WinRate is the running confidence sequence of
	// p = P(candidate wins | discordant), Estimate Wins/(Wins+Losses)
	// (0.5 before any discordant pair), Level as above.
	WinRate Interval
	Stop    StopReason
	// Direction is the side the evidence is on once the e-process has
	// reached 1/α (Greater: the candidate is better; Less: worse); empty
	// before. A two-sided test that crossed thus also says which way, with
	// the same error bound: under the null it crosses at all with
	// probability at most α.
	Direction Alternative
	Warnings  []Warning
}

// SignTest is a sequential sign test on paired pass/fail outcomes: an
// e-process over the discordant pairs, where exactly one of the baseline
// and the candidate passed a case. Concordant pairs are counted but leave
// the e-process unchanged.
//
// Null hypothesis. Given the past, each discordant pair is won by the
// candidate with probability p = 1/2 (TwoSided), p ≤ 1/2 (Greater: "the
// candidate is no better"), or p ≥ 1/2 (Less: "the candidate is no
// worse"). When the two runs of a pair are independent draws with pass
// probabilities π_B (baseline) and π_C (candidate) on the same case,
// p = π_C(1−π_B) / (π_C(1−π_B) + π_B(1−π_C)), which is 1/2 exactly when
// π_C = π_B. So the null "the change alters no case's pass probability"
// makes every discordant pair a fair coin, whatever case it comes from and
// however the case was chosen: round-robin, fixed order, or adaptively
// from the results so far. Repetitions of a case need no cluster
// correction, because the argument is conditional on the case. For
// Greater the null "the change raises no case's pass probability"
// (π_C ≤ π_B everywhere) suffices, and for Less its mirror.
//
// E-process. With w wins and l losses among n = w + l discordant pairs and
// a Beta(a, b) mixing distribution over p (Robbins' method of mixtures):
//
//	TwoSided: E_n = B(a+w, b+l)/B(a, b) / 0.5ⁿ
//	Greater:  E_n = B(a+w, b+l)·I_½(b+l, a+w) / (B(a, b)·I_½(b, a)) / 0.5ⁿ
//	Less:     E_n = B(a+w, b+l)·I_½(a+w, b+l) / (B(a, b)·I_½(a, b)) / 0.5ⁿ
//
// I_x is the regularized incomplete beta function. The one-sided forms
// mix the likelihood ratios (p/½)^w((1−p)/½)^l over the Beta restricted to
// p > 1/2 (Greater) or p < 1/2 (Less) and renormalized; for each such p
// the ratio is a nonnegative supermartingale under every p₀ on the null
// side (its factor has mean 2p₀p + 2(1−p₀)(1−p) ≤ 1), so the mixture is a
// test supermartingale for the whole composite null. All are computed in
// log space with lgamma.
//
// Guarantee. By Ville's inequality, under the null
// P(∃n: E_n ≥ 1/α) ≤ α: the test may be looked at after every pair and
// stopped at any data-dependent time. PValue = min(1, 1/max E) is an
// anytime-valid p-value. WinRate is the confidence sequence
// {p₀ : B(a+w, b+l)/B(a, b) / (p₀^w (1−p₀)^l) < 1/α} (a mixture
// martingale for each p₀), intersected over time, which covers the true p
// at all times simultaneously with probability ≥ 1 − α when p is the same
// for every discordant pair (with p varying between cases it describes,
// and decides nothing).
//
// Futility. With Futility p₁, a second e-process tests "every discordant
// pair is won with probability at least p₁" by mixing the likelihood
// ratios (p/p₁)^w((1−p)/(1−p₁))^l over the Beta restricted to p < p₁:
//
//	F_n = B(a+w, b+l)·I_{p₁}(a+w, b+l) / (B(a, b)·I_{p₁}(a, b)) / (p₁^w (1−p₁)^l)
//
// For p < p₁ each ratio's factor has mean
// p_t·p/p₁ + (1−p_t)(1−p)/(1−p₁) ≤ 1 whenever p_t ≥ p₁, so F is a test
// supermartingale under that composite hypothesis, heterogeneous cases
// included, and the test stops as Futile once F reaches 1/α (Greater).
// Less uses the mirror, against p ≤ 1 − p₁ with the mixture on
// p > 1 − p₁; TwoSided needs both. Stopping for futility never raises the
// type I error: it only ends the test without a rejection.
//
// Assumptions. The runs of a pair are independent of each other given the
// case, each run's outcome depends only on its case and system, and the
// choice of the next case uses only past outcomes.
type SignTest struct {
	st SignTestState
}

// NewSignTest starts a test with no pairs.
func NewSignTest(opts SignTestOptions) (*SignTest, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &SignTest{st: SignTestState{Options: o, Lower: 0, Upper: 1, Stop: Continuing}}, nil
}

// ResumeSignTest continues a test from a state saved with
// [SignTest.State]. The result is bit-identical to a test that never
// stopped.
func ResumeSignTest(st SignTestState) (*SignTest, error) {
	o, err := st.Options.resolve()
	if err != nil {
		return nil, err
	}
	if o != st.Options {
		return nil, errorf(CodeArgument, "state options are not resolved (%+v); save states with SignTest.State", st.Options)
	}
	switch {
	case st.Wins < 0 || st.Losses < 0 || st.Wins+st.Losses > st.Pairs:
		return nil, errorf(CodeArgument, "state counts: %d wins and %d losses in %d pairs", st.Wins, st.Losses, st.Pairs)
	case !(st.MaxLogE >= signLogE(o, st.Wins, st.Losses)) || math.IsInf(st.MaxLogE, 0):
		return nil, errorf(CodeArgument, "state max_log_e %v is below the current log e-value or not finite", st.MaxLogE)
	case !(0 <= st.Lower && st.Lower <= st.Upper && st.Upper <= 1):
		return nil, errorf(CodeArgument, "state bounds [%v, %v] are not inside [0, 1]", st.Lower, st.Upper)
	case !(st.FutileBelowLogE >= 0 && st.FutileAboveLogE >= 0) || math.IsInf(st.FutileBelowLogE+st.FutileAboveLogE, 0):
		return nil, errorf(CodeArgument, "state futility log e-values %v and %v, want finite values ≥ 0", st.FutileBelowLogE, st.FutileAboveLogE)
	}
	switch st.Stop {
	case Continuing, Crossed, Futile, MaxReached:
	default:
		return nil, errorf(CodeArgument, "state stop %q is unknown", string(st.Stop))
	}
	if crossed := st.MaxLogE >= -math.Log(1-o.Level); crossed != (st.Direction == Greater || st.Direction == Less) {
		return nil, errorf(CodeArgument, "state direction %q does not match max_log_e %v", string(st.Direction), st.MaxLogE)
	}
	return &SignTest{st: st}, nil
}

// State returns a copy of the test's state, for [ResumeSignTest].
func (s *SignTest) State() SignTestState { return s.st }

// Observe adds one pair — did the baseline pass, did the candidate pass —
// and returns the result after it. Once the test has stopped it ignores
// further pairs: its decision, counts and e-value are final.
func (s *SignTest) Observe(baseline, candidate bool) SignTestResult {
	st := &s.st
	if st.Stop != Continuing {
		return s.Result()
	}
	st.Pairs++
	if baseline != candidate {
		if candidate {
			st.Wins++
		} else {
			st.Losses++
		}
		o := st.Options
		st.MaxLogE = math.Max(st.MaxLogE, signLogE(o, st.Wins, st.Losses))
		if st.Direction == "" && st.MaxLogE >= -math.Log(1-o.Level) {
			st.Direction = Less
			if st.Wins > st.Losses {
				st.Direction = Greater
			}
		}
		if o.Futility > 0 {
			st.FutileBelowLogE = math.Max(st.FutileBelowLogE, futilityLogE(o, st.Wins, st.Losses, false))
			st.FutileAboveLogE = math.Max(st.FutileAboveLogE, futilityLogE(o, st.Wins, st.Losses, true))
		}
		lo, hi := winRateCS(o, st.Wins, st.Losses)
		st.Lower, st.Upper = math.Max(st.Lower, lo), math.Min(st.Upper, hi)
	}
	st.Stop = s.decide()
	return s.Result()
}

// decide applies the stopping rule to the current state.
func (s *SignTest) decide() StopReason {
	st, o := &s.st, s.st.Options
	if st.Pairs < o.MinPairs {
		return Continuing
	}
	if st.MaxLogE >= -math.Log(1-o.Level) {
		return Crossed
	}
	if f := o.Futility; f > 0 {
		thr := -math.Log(1 - o.Level)
		below, above := st.FutileBelowLogE >= thr, st.FutileAboveLogE >= thr
		if (o.Alternative == Greater && below) || (o.Alternative == Less && above) ||
			(o.Alternative == TwoSided && below && above) {
			return Futile
		}
	}
	if o.MaxPairs > 0 && st.Pairs >= o.MaxPairs {
		return MaxReached
	}
	return Continuing
}

// Result returns the test's current result.
func (s *SignTest) Result() SignTestResult {
	st, o := s.st, s.st.Options
	logE := signLogE(o, st.Wins, st.Losses)
	est := 0.5
	if n := st.Wins + st.Losses; n > 0 {
		est = float64(st.Wins) / float64(n)
	}
	return SignTestResult{
		Method:      SignTestMixture,
		Alternative: o.Alternative,
		Level:       o.Level,
		Pairs:       st.Pairs,
		Wins:        st.Wins,
		Losses:      st.Losses,
		EValue:      expCapped(logE),
		LogEValue:   logE,
		MaxEValue:   expCapped(st.MaxLogE),
		PValue:      anytimeP(st.MaxLogE),
		WinRate: Interval{Method: SignTestMixture, Level: o.Level, Estimate: est,
			Lower: st.Lower, Upper: st.Upper, N: st.Wins + st.Losses, Units: st.Wins + st.Losses},
		Stop:      st.Stop,
		Direction: st.Direction,
	}
}

// SignTestLogE returns ln E of the sign-test e-process of [SignTest] after
// wins and losses discordant pairs, for counts gathered elsewhere (two
// finished suites). Only Alternative, PriorA and PriorB of opts matter.
func SignTestLogE(wins, losses int, opts SignTestOptions) (float64, error) {
	o, err := opts.resolve()
	if err != nil {
		return 0, err
	}
	if wins < 0 || losses < 0 {
		return 0, errorf(CodeArgument, "wins %d and losses %d, want counts ≥ 0", wins, losses)
	}
	return signLogE(o, wins, losses), nil
}

// signLogE is ln E_n for resolved options.
func signLogE(o SignTestOptions, w, l int) float64 {
	a, b := o.PriorA, o.PriorB
	fw, fl := float64(w), float64(l)
	logE := lbeta(a+fw, b+fl) - lbeta(a, b) + (fw+fl)*math.Ln2
	switch o.Alternative {
	case Greater:
		logE += logRegIncBeta(0.5, b+fl, a+fw) - logRegIncBeta(0.5, b, a)
	case Less:
		logE += logRegIncBeta(0.5, a+fw, b+fl) - logRegIncBeta(0.5, a, b)
	}
	return logE
}

// futilityLogE is ln F_n, the e-process against p ≥ p₁ (above false) or
// against p ≤ 1 − p₁ (above true).
func futilityLogE(o SignTestOptions, w, l int, above bool) float64 {
	a, b := o.PriorA, o.PriorB
	fw, fl := float64(w), float64(l)
	logE := lbeta(a+fw, b+fl) - lbeta(a, b)
	if !above {
		p1 := o.Futility
		return logE + logRegIncBeta(p1, a+fw, b+fl) - logRegIncBeta(p1, a, b) -
			fw*math.Log(p1) - fl*math.Log1p(-p1)
	}
	q1 := 1 - o.Futility // mixture on p > q1: I over (q1, 1] is I_{1−q1}(b, a)
	return logE + logRegIncBeta(1-q1, b+fl, a+fw) - logRegIncBeta(1-q1, b, a) -
		fw*math.Log(q1) - fl*math.Log1p(-q1)
}

// winRateCS returns the confidence sequence of the win rate at the
// current counts (not intersected over time): the p₀ where
// w·ln p₀ + l·ln(1−p₀) > ln B(a+w, b+l) − ln B(a, b) − ln(1/α). The left
// side is concave with its maximum at w/(w+l), so each bound is found by
// bisection on its side of the maximum.
func winRateCS(o SignTestOptions, w, l int) (lo, hi float64) {
	a, b := o.PriorA, o.PriorB
	fw, fl := float64(w), float64(l)
	thr := lbeta(a+fw, b+fl) - lbeta(a, b) + math.Log(1-o.Level)
	in := func(p float64) bool {
		ll := 0.0 // 0·ln 0 counts as 0 at the ends
		if w > 0 {
			ll += fw * math.Log(p)
		}
		if l > 0 {
			ll += fl * math.Log1p(-p)
		}
		return ll > thr
	}
	mode := fw / (fw + fl) // in(mode): the maximum likelihood exceeds the marginal one, which exceeds thr
	const tol = 1e-12
	lo, hi = 0, 1
	if w > 0 {
		lo = bisectBound(mode, 0, tol, in)
	}
	if l > 0 {
		hi = bisectBound(mode, 1, tol, in)
	}
	return lo, hi
}
