package stats

import (
	"errors"
	"fmt"
	"math"
)

// Defaults and limits of [CSOptions].
const (
	DefaultTrunc = 0.5  // c, the cap on a bet as a share of what can be lost
	DefaultGrid  = 1000 // betting CS: grid intervals on the mean's range
	MaxGrid      = 100_000
)

// CSOptions configures a confidence sequence for a bounded mean
// ([BettingSequence], [EBSequence]). Its zero value is a two-sided 95 %
// sequence for values in [0, 1] whose e-value tests the mean 0.
type CSOptions struct {
	Level float64 `json:"level,omitempty"` // 1 − α; 0 means 0.95, else in [0.5, 0.999]
	// Min and Max bound every observation; both 0 means [0, 1]. Paired
	// pass/fail differences (after − before) use Min −1, Max 1: they are
	// mapped to [0, 1] by (d+1)/2 and the bounds mapped back.
	Min float64 `json:"min,omitempty"`
	Max float64 `json:"max,omitempty"`
	// Null is the mean the e-value tests, on the scale of the values
	// (0: "no change" for differences); it must lie in [Min, Max].
	Null float64 `json:"null,omitempty"`
	// Alternative: TwoSided ("") bounds the mean on both sides; Greater
	// only from below (the upper bound stays Max) and Less only from above,
	// which spends all of α on one side. A one-sided sequence also gives
	// its far bound, at the same level, for futility alone
	// (ConfidenceSequence.Far).
	Alternative Alternative `json:"alternative,omitempty"`
	// Trunc is c ∈ (0, 1), the largest bet as a share of the capital that
	// one observation can lose; 0 means 1/2 (3/4 is the paper's other
	// choice).
	Trunc float64 `json:"trunc,omitempty"`
	// Grid is the number of intervals of the grid of candidate means of a
	// BettingSequence (0 means 1000); each bound is rounded outwards to it.
	Grid int `json:"grid,omitempty"`
}

func (o CSOptions) resolve() (CSOptions, error) {
	var errs []error
	level, err := CheckLevel(o.Level)
	errs = append(errs, err)
	o.Level = level
	alt, err := resolveAlternative(o.Alternative)
	errs = append(errs, err)
	o.Alternative = alt
	if o.Min == 0 && o.Max == 0 {
		o.Max = 1
	}
	if !(o.Min < o.Max) || math.IsInf(o.Min, 0) || math.IsInf(o.Max, 0) {
		errs = append(errs, errorf(CodeConfig, "Min %v and Max %v: want finite Min < Max (both 0 means [0, 1])", o.Min, o.Max))
	} else if !(o.Null >= o.Min && o.Null <= o.Max) {
		errs = append(errs, errorf(CodeConfig, "Null %v is outside [Min, Max] = [%v, %v]", o.Null, o.Min, o.Max))
	}
	switch {
	case o.Trunc == 0:
		o.Trunc = DefaultTrunc
	case !(o.Trunc > 0 && o.Trunc < 1):
		errs = append(errs, errorf(CodeConfig, "Trunc is %v, want 0 (default %v) or a value in (0, 1)", o.Trunc, DefaultTrunc))
	}
	switch {
	case o.Grid == 0:
		o.Grid = DefaultGrid
	case o.Grid < 10 || o.Grid > MaxGrid:
		errs = append(errs, errorf(CodeConfig, "Grid is %d, want 0 (default %d) or 10..%d", o.Grid, DefaultGrid, MaxGrid))
	}
	return o, errors.Join(errs...)
}

// scale maps a value to [0, 1]; unscale maps back.
func (o CSOptions) scale(x float64) float64   { return (x - o.Min) / (o.Max - o.Min) }
func (o CSOptions) unscale(m float64) float64 { return o.Min + m*(o.Max-o.Min) }

// checkValue reports a value outside [Min, Max] or not finite.
func (o CSOptions) checkValue(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return errorf(CodeNonFinite, "observation is %v", x)
	}
	if x < o.Min || x > o.Max {
		return errorf(CodeDomain, "observation %v is outside [Min, Max] = [%v, %v]; set CSOptions.Min and Max to the values' bounds", x, o.Min, o.Max)
	}
	return nil
}

// sides is 2 for a two-sided sequence and 1 for a one-sided one: the
// plug-in bets and the empirical-Bernstein margin use ln(sides/α).
func (o CSOptions) sides() float64 {
	if o.Alternative == TwoSided {
		return 2
	}
	return 1
}

// theta is the share of the capital on the "mean is above m" side.
func (o CSOptions) theta() float64 {
	switch o.Alternative {
	case Greater:
		return 1
	case Less:
		return 0
	}
	return 0.5
}

// ConfidenceSequence is a confidence sequence for a mean after the last
// observation, with the e-process that tests the mean Null. Its Interval
// holds the method, level, estimate (the sample mean), the bounds (the
// running intersection, so they never widen), the number of observations
// and the warnings.
type ConfidenceSequence struct {
	Interval
	Alternative Alternative // the sides the sequence bounds and the e-value tests
	Null        float64
	// EValue is the e-process for the null "the mean is Null" at the last
	// observation (LogEValue its log; EValue capped at math.MaxFloat64),
	// MaxEValue its running maximum and PValue = min(1, 1/MaxEValue) the
	// anytime-valid p-value.
	EValue, LogEValue, MaxEValue, PValue float64
	// Far is, for a one-sided sequence, the bound on the side it does not
	// test (Greater: an upper bound; Less: a lower bound), from the
	// opposite side's capital at the same level after the last
	// observation (not intersected over time, so that the saved state is
	// unchanged); Interval leaves that side at Max (Min). It is a
	// confidence sequence of its own — P(∃t: the mean is beyond Far) ≤ α,
	// by Ville's inequality — and is read only by Decide's futility rule,
	// never reported as part of the interval: Interval and Far together
	// cover with 1 − 2α. 0 for a two-sided sequence, whose Lower and Upper
	// are both read.
	Far float64
}

// Decide applies the stopping rule of an experiment to the sequence:
// Crossed once the anytime p-value is at most α = 1 − Level (the null
// "the mean is Null" is rejected); Futile when minEffect > 0 and the
// sequence excludes every mean at least minEffect beyond Null on the
// alternative's side; Continuing otherwise. A cap on observations is the
// caller's (MaxReached).
//
// Futility reads the bound that can exclude a large effect: for Greater
// (an improvement test) the far bound, Far < Null + minEffect, since the
// sequence's own upper bound stays at Max; for Less, Far > Null −
// minEffect; for TwoSided, Upper < Null + minEffect and Lower > Null −
// minEffect together.
//
// Guarantees, at any time, because the sequences and the e-process are
// valid uniformly over time: P(Crossed ever | mean = Null) ≤ α, and
// stopping for futility can only lower it (futility is non-binding);
// P(Futile ever | the mean is at least minEffect beyond Null) ≤ α — for
// a one-sided sequence by Far's own level, for a two-sided one by the
// sequence's. A one-sided test thus keeps all of α for crossing and
// spends another α, separately, on wrongly giving up.
func (cs ConfidenceSequence) Decide(minEffect float64) StopReason {
	if cs.PValue <= 1-cs.Level {
		return Crossed
	}
	if minEffect > 0 {
		below, above := cs.Upper < cs.Null+minEffect, cs.Lower > cs.Null-minEffect
		switch cs.Alternative {
		case Greater:
			if cs.Far < cs.Null+minEffect {
				return Futile
			}
		case Less:
			if cs.Far > cs.Null-minEffect {
				return Futile
			}
		default:
			if below && above {
				return Futile
			}
		}
	}
	return Continuing
}

// String formats the sequence as its interval followed by the p-value.
func (cs ConfidenceSequence) String() string {
	return fmt.Sprintf("%v, anytime p=%.4g", cs.Interval, cs.PValue)
}

// BettingState is everything a [BettingSequence] needs to continue, as
// plain JSON: the capital of both sides at every grid point (2·(Grid+1)
// numbers) and the running sums of the bets. Pass it to [ResumeBetting].
type BettingState struct {
	Options CSOptions `json:"options"`
	N       int       `json:"n"`
	Sum     float64   `json:"sum"`    // Σ xᵢ on the [0, 1] scale
	SumSq   float64   `json:"sum_sq"` // Σ (xᵢ − μ̂ᵢ)², for σ̂²
	// LogUp[j] and LogDown[j] are ln K⁺ and ln K⁻ at the mean j/Grid.
	LogUp   []float64 `json:"log_up"`
	LogDown []float64 `json:"log_down"`
	// NullUp and NullDown are ln K⁺ and ln K⁻ at Null.
	NullUp   float64 `json:"null_up"`
	NullDown float64 `json:"null_down"`
	MaxLogE  float64 `json:"max_log_e"`
	Lower    float64 `json:"lower"` // running intersection, [0, 1] scale
	Upper    float64 `json:"upper"`
}

// BettingSequence is the hedged-capital betting confidence sequence of
// Waudby-Smith & Ramdas ("Estimating means of bounded random variables
// by betting", JRSS-B 86(1), 2024: the hedged capital process with
// predictable plug-in bets), for values in
// [Min, Max] mapped to [0, 1]. It is the tightest of the bounded-mean
// sequences here; [EBSequence] is its closed-form fallback.
//
// Construction. For each candidate mean m two gamblers bet on the
// observations xᵢ ∈ [0, 1], one that the mean is above m and one below:
//
//	K⁺ₜ(m) = Π (1 + λᵢ⁺(m)(xᵢ − m)),  K⁻ₜ(m) = Π (1 − λᵢ⁻(m)(xᵢ − m))
//	λᵢ⁺(m) = min(λ̇ᵢ, c/m),  λᵢ⁻(m) = min(λ̇ᵢ, c/(1−m))
//	λ̇ᵢ = √(2 ln(2/α) / (σ̂²ᵢ₋₁ · i · ln(1+i)))            (predictable plug-in)
//	μ̂ᵢ = (½ + Σ_{j≤i} xⱼ)/(i+1),  σ̂²ᵢ = (¼ + Σ_{j≤i} (xⱼ − μ̂ⱼ)²)/(i+1)
//
// with c = Trunc, and ln(1/α) in λ̇ᵢ when one-sided. The hedged capital
// is Kₜ(m) = max(θK⁺ₜ(m), (1−θ)K⁻ₜ(m)), θ = ½ (1 for Greater, 0 for
// Less), and the sequence is {m : Kₜ(m) < 1/α}, intersected over time. The bets are fixed before xᵢ
// is seen, so at the true mean both capitals are nonnegative martingales
// starting at 1 and every factor is at least 1 − c > 0.
//
// Computation. λᵢ⁺(m)(x − m) does not increase in m and λᵢ⁻(m)(m − x)
// does not decrease, so K⁺ₜ is nonincreasing and K⁻ₜ nondecreasing in m:
// the sequence is an interval whose lower end comes from K⁺ alone and
// upper end from K⁻. Both are kept on the grid m = j/Grid, j = 0..Grid,
// updated in O(Grid) per observation; the lower bound is the grid point
// just below the first point inside, the upper bound the point just above
// the last, so each is rounded outwards by at most 1/Grid of the range.
//
// Guarantee. Under the assumptions, P(∃t: mean ∉ Cₜ) ≤ α, by Ville's
// inequality applied to θK⁺ + (1−θ)K⁻ ≥ K at the true mean: the sequence
// may be read after every observation and the experiment stopped whenever
// it excludes a value. The e-value for Null is the hedged capital
// Kₜ(Null) itself: under "the mean is Null" it is dominated by the test
// martingale θK⁺ + (1−θ)K⁻, so it is an e-process (its value at any
// stopping time is an e-value, for [EBenjaminiHochberg]) and it reaches
// 1/α exactly when the exact sequence excludes Null; the grid-rounded
// bounds exclude Null only if it does.
//
// Sampling design for the test alone. The e-value for Null = 0 on paired
// differences needs less than the sequence: under "the change alters no
// case's pass probability" every difference has conditional mean 0
// whatever the case, so the test holds for round-robin or adaptive
// choice of cases too; only the interval, an estimate of a population
// mean, needs the designs below.
//
// Sampling design. The observations must have the same conditional mean
// given the past (a martingale-difference design), which holds when
// (a) each observation is an independent draw of a case at random from a
// fixed set (with replacement) and one run of each system on it — the
// mean is then the population's mean paired difference; or (b) each
// observation is one round over a fixed set of cases, the round's mean
// paired difference, with rounds independent and identically distributed.
// A fixed, round-robin order of single cases is not such a design: the
// conditional mean then changes with the case; use design (b) or
// [SignTest], whose null holds for any order.
type BettingSequence struct {
	st BettingState
}

// NewBettingSequence starts a sequence with no observations.
func NewBettingSequence(opts CSOptions) (*BettingSequence, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	st := BettingState{Options: o, LogUp: make([]float64, o.Grid+1), LogDown: make([]float64, o.Grid+1), Lower: 0, Upper: 1}
	return &BettingSequence{st: st}, nil
}

// ResumeBetting continues a sequence from a state saved with
// [BettingSequence.State]; the results are bit-identical to a sequence
// that never stopped.
func ResumeBetting(st BettingState) (*BettingSequence, error) {
	o, err := st.Options.resolve()
	if err != nil {
		return nil, err
	}
	if o != st.Options {
		return nil, errorf(CodeArgument, "state options are not resolved (%+v); save states with BettingSequence.State", st.Options)
	}
	if st.N < 0 || len(st.LogUp) != o.Grid+1 || len(st.LogDown) != o.Grid+1 ||
		!(0 <= st.Lower && st.Upper <= 1) || !(st.MaxLogE >= 0) {
		return nil, errorf(CodeArgument, "state does not match its options: n %d, %d and %d grid values for Grid %d, bounds [%v, %v], max_log_e %v",
			st.N, len(st.LogUp), len(st.LogDown), o.Grid, st.Lower, st.Upper, st.MaxLogE)
	}
	st.LogUp = append([]float64(nil), st.LogUp...)
	st.LogDown = append([]float64(nil), st.LogDown...)
	return &BettingSequence{st: st}, nil
}

// State returns a copy of the sequence's state, for [ResumeBetting].
func (b *BettingSequence) State() BettingState {
	st := b.st
	st.LogUp = append([]float64(nil), st.LogUp...)
	st.LogDown = append([]float64(nil), st.LogDown...)
	return st
}

// Observe adds one observation and returns the sequence after it. A value
// outside [Min, Max] or not finite is refused ([ErrDomain],
// [ErrNonFinite]) and leaves the sequence unchanged.
func (b *BettingSequence) Observe(value float64) (ConfidenceSequence, error) {
	st := &b.st
	o := st.Options
	if err := o.checkValue(value); err != nil {
		return b.Result(), err
	}
	x := o.scale(value)
	alpha := 1 - o.Level
	t := float64(st.N + 1)
	sigma2 := (0.25 + st.SumSq) / t // σ̂²_{t−1}
	lam := math.Sqrt(2 * math.Log(o.sides()/alpha) / (sigma2 * t * math.Log1p(t)))
	c := o.Trunc
	g := float64(o.Grid)
	for j := range st.LogUp {
		m := float64(j) / g
		st.LogUp[j] += math.Log1p(betUp(lam, c, m) * (x - m))
		st.LogDown[j] += math.Log1p(-betDown(lam, c, m) * (x - m))
	}
	m0 := o.scale(o.Null)
	st.NullUp += math.Log1p(betUp(lam, c, m0) * (x - m0))
	st.NullDown += math.Log1p(-betDown(lam, c, m0) * (x - m0))
	st.Sum += x
	mu := (0.5 + st.Sum) / (t + 1)
	st.SumSq += (x - mu) * (x - mu)
	st.N++
	st.MaxLogE = math.Max(st.MaxLogE, hedgedLogE(o.theta(), st.NullUp, st.NullDown))
	lo, hi := b.bounds()
	st.Lower, st.Upper = math.Max(st.Lower, lo), math.Min(st.Upper, hi)
	return b.Result(), nil
}

// betUp and betDown are the truncated bets λ⁺(m) and λ⁻(m).
func betUp(lam, c, m float64) float64 {
	if m > 0 {
		return math.Min(lam, c/m)
	}
	return lam
}

func betDown(lam, c, m float64) float64 {
	if m < 1 {
		return math.Min(lam, c/(1-m))
	}
	return lam
}

// hedgedLogE is ln max(θ·e^up, (1−θ)·e^down), the log of the hedged
// capital.
func hedgedLogE(theta, up, down float64) float64 {
	switch theta {
	case 1:
		return up
	case 0:
		return down
	}
	return math.Max(math.Log(theta)+up, math.Log(1-theta)+down)
}

// bounds returns the current (not intersected) sequence on [0, 1].
func (b *BettingSequence) bounds() (lo, hi float64) {
	theta := b.st.Options.theta()
	lo, hi = 0, 1
	if theta > 0 {
		lo = b.lowerAt(theta)
	}
	if theta < 1 {
		hi = b.upperAt(1 - theta)
	}
	return lo, hi
}

// lowerAt is the lower end of {m : w·K⁺ₜ(m) < 1/α} on [0, 1], rounded
// down to the grid.
func (b *BettingSequence) lowerAt(w float64) float64 {
	st := &b.st
	thr := -math.Log(1 - st.Options.Level)
	first := len(st.LogUp) - 1 // K⁺ at m = 1 is at most 1: always inside
	for j, v := range st.LogUp {
		if math.Log(w)+v < thr {
			first = j
			break
		}
	}
	return math.Max(0, float64(first-1)/float64(st.Options.Grid))
}

// upperAt is the upper end of {m : w·K⁻ₜ(m) < 1/α} on [0, 1], rounded
// up to the grid.
func (b *BettingSequence) upperAt(w float64) float64 {
	st := &b.st
	thr := -math.Log(1 - st.Options.Level)
	last := 0 // K⁻ at m = 0 is at most 1: always inside
	for j := len(st.LogDown) - 1; j >= 0; j-- {
		if math.Log(w)+st.LogDown[j] < thr {
			last = j
			break
		}
	}
	return math.Min(1, float64(last+1)/float64(st.Options.Grid))
}

// far is the far bound of a one-sided sequence on [0, 1] (see
// ConfidenceSequence.Far): the other side's capital, all of it on that
// side, at the same threshold 1/α. Both capitals are kept at every grid
// point whatever the alternative, so it costs no state.
func (b *BettingSequence) far() float64 {
	switch b.st.Options.Alternative {
	case Greater:
		return b.upperAt(1)
	case Less:
		return b.lowerAt(1)
	}
	return 0
}

// Result returns the sequence after the last observation.
func (b *BettingSequence) Result() ConfidenceSequence {
	st := b.st
	return csResult(st.Options, BettingCS, st.N, st.Sum, st.Lower, st.Upper, b.far(),
		hedgedLogE(st.Options.theta(), st.NullUp, st.NullDown), st.MaxLogE)
}

// csResult assembles a bounded-mean result, mapping [0, 1] back to
// [Min, Max]; far is a one-sided sequence's far bound on [0, 1].
func csResult(o CSOptions, m Method, n int, sum, lo, hi, far, logE, maxLogE float64) ConfidenceSequence {
	est := o.unscale(0.5) // the midpoint before any observation
	if n > 0 {
		est = o.unscale(sum / float64(n))
	}
	farValue := 0.0 // a two-sided sequence has none
	if o.Alternative != TwoSided {
		farValue = o.unscale(far)
	}
	cs := ConfidenceSequence{
		Interval: Interval{Method: m, Level: o.Level, Estimate: est,
			Lower: o.unscale(lo), Upper: o.unscale(hi), N: n, Units: n},
		Alternative: o.Alternative, Null: o.Null, EValue: expCapped(logE), LogEValue: logE,
		MaxEValue: expCapped(maxLogE), PValue: anytimeP(maxLogE), Far: farValue,
	}
	if lo > hi {
		cs.Warnings = append(cs.Warnings, warnf(WarnDegenerate,
			"the sequence is empty: no mean in [%v, %v] fits the data at level %v (under the assumptions this happens with probability at most %.3g)",
			o.Min, o.Max, o.Level, 1-o.Level))
	}
	return cs
}
