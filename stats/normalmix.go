package stats

import (
	"errors"
	"math"
)

// DefaultOptimizeAt is the default number of observations at which a
// [NormalMixture] sequence is tightest.
const DefaultOptimizeAt = 100

// NormalMixtureOptions configures a [NormalMixture]. Its zero value is a
// two-sided 95 % sequence with an estimated standard deviation, tightest
// at 100 observations, whose e-value tests the mean 0.
type NormalMixtureOptions struct {
	Level float64 `json:"level,omitempty"` // 1 − α; 0 means 0.95, else in [0.5, 0.999]
	// Sigma is a known sub-Gaussian scale σ of the observations (for values
	// in [a, b], (b−a)/2 always is one); 0 means estimate it with the
	// sample standard deviation, which makes the sequence asymptotic.
	Sigma float64 `json:"sigma,omitempty"`
	// OptimizeAt is the number of observations t* at which the boundary is
	// tightest; 0 means 100. The guarantee holds for every choice.
	OptimizeAt int `json:"optimize_at,omitempty"`
	// Rho is the mixing precision r₀ itself (the standardized drift is
	// mixed over N(0, 1/r₀)); 0 means derive it from OptimizeAt.
	Rho  float64 `json:"rho,omitempty"`
	Null float64 `json:"null,omitempty"` // the mean the e-value tests
}

func (o NormalMixtureOptions) resolve() (NormalMixtureOptions, error) {
	var errs []error
	level, err := CheckLevel(o.Level)
	errs = append(errs, err)
	o.Level = level
	if !(o.Sigma >= 0) || math.IsInf(o.Sigma, 0) {
		errs = append(errs, errorf(CodeConfig, "Sigma is %v, want 0 (estimate) or a finite positive scale", o.Sigma))
	}
	switch {
	case o.OptimizeAt == 0:
		o.OptimizeAt = DefaultOptimizeAt
	case o.OptimizeAt < 0:
		errs = append(errs, errorf(CodeConfig, "OptimizeAt is %d, want 0 (default %d) or a positive count", o.OptimizeAt, DefaultOptimizeAt))
	}
	if !(o.Rho >= 0) || math.IsInf(o.Rho, 0) {
		errs = append(errs, errorf(CodeConfig, "Rho is %v, want 0 (from OptimizeAt) or a finite positive precision", o.Rho))
	}
	if math.IsNaN(o.Null) || math.IsInf(o.Null, 0) {
		errs = append(errs, errorf(CodeConfig, "Null is %v, want a finite mean", o.Null))
	}
	return o, errors.Join(errs...)
}

// rho0 is the mixing precision: Rho, or r₀ = t*/(L + ln(1+L)),
// L = 2 ln(1/α), which makes the boundary tightest near t* observations.
func (o NormalMixtureOptions) rho0() float64 {
	if o.Rho > 0 {
		return o.Rho
	}
	l := -2 * math.Log(1-o.Level)
	return float64(o.OptimizeAt) / (l + math.Log1p(l))
}

// NormalMixtureState is everything a [NormalMixture] needs to continue, as
// plain JSON. Pass it to [ResumeNormalMixture].
type NormalMixtureState struct {
	Options NormalMixtureOptions `json:"options"`
	N       int                  `json:"n"`
	Mean    float64              `json:"mean"` // running mean (Welford)
	M2      float64              `json:"m2"`   // Σ (xᵢ − x̄)², Welford's update
	MaxLogE float64              `json:"max_log_e"`
}

// NormalMixture is the two-sided normal-mixture confidence sequence of
// Howard, Ramdas, McAuliffe & Sekhon ("Time-uniform, nonparametric,
// nonasymptotic confidence sequences", Ann. Statist. 49(2), 2021: the
// two-sided normal mixture boundary), the boundary of the
// mixture sequential probability ratio test (mSPRT). For the standardized
// sum Zₜ = Σ(xᵢ − μ)/σ, mixing exp(λZₜ − λ²t/2) over λ ~ N(0, 1/r₀) gives
// the martingale
//
//	Mₜ = √(r₀/(t+r₀)) · exp(Zₜ² / (2(t+r₀)))
//
// and Mₜ < 1/α is the sequence
//
//	x̄ₜ ± (σ/t) · √((t + r₀) · ln((t + r₀)/(r₀ α²)))
//
// r₀ = Rho, or by default t*/(L + ln(1+L)), L = 2 ln(1/α), which makes
// it tightest near t* = OptimizeAt observations (the approximate optimum
// used by Waudby-Smith et al.; the exact one solves
// ln(1 + 1/r) + L = 1/r for r = r₀/t*).
// The e-value for Null is Mₜ with μ = Null.
//
// Guarantee and its nature. With a known Sigma and observations whose
// increments are σ-sub-Gaussian given the past (bounded values: σ =
// (b−a)/2), Mₜ is a nonnegative supermartingale and
// P(∃t: μ ∉ Cₜ) ≤ α exactly, for every t. With Sigma 0, σ is replaced by
// the running sample standard deviation; the sequence is then only
// asymptotically valid (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas,
// "Time-uniform central limit theory and asymptotic confidence
// sequences", Ann. Statist. 2024): the guarantee is approached as the
// sample grows, and early bounds can be too narrow, so the result carries
// a few-units warning below 30 observations. It is meant for large
// samples of i.i.d. observations (the designs of [BettingSequence]),
// where it is the cheapest; for small or bounded samples prefer
// [BettingSequence] or [EBSequence]. It is not intersected over time.
type NormalMixture struct {
	st NormalMixtureState
}

// NewNormalMixture starts a sequence with no observations.
func NewNormalMixture(opts NormalMixtureOptions) (*NormalMixture, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &NormalMixture{st: NormalMixtureState{Options: o}}, nil
}

// ResumeNormalMixture continues a sequence from a state saved with
// [NormalMixture.State]; the results are bit-identical to a sequence that
// never stopped.
func ResumeNormalMixture(st NormalMixtureState) (*NormalMixture, error) {
	o, err := st.Options.resolve()
	if err != nil {
		return nil, err
	}
	if o != st.Options {
		return nil, errorf(CodeArgument, "state options are not resolved (%+v); save states with NormalMixture.State", st.Options)
	}
	if st.N < 0 || !(st.M2 >= 0) || !(st.MaxLogE >= 0) || math.IsInf(st.Mean, 0) || math.IsNaN(st.Mean) {
		return nil, errorf(CodeArgument, "state is invalid: n %d, m2 %v, max_log_e %v, mean %v", st.N, st.M2, st.MaxLogE, st.Mean)
	}
	return &NormalMixture{st: st}, nil
}

// State returns the sequence's state, for [ResumeNormalMixture].
func (nm *NormalMixture) State() NormalMixtureState { return nm.st }

// Observe adds one observation and returns the sequence after it. A value
// that is not finite is refused and leaves the sequence unchanged.
func (nm *NormalMixture) Observe(value float64) (ConfidenceSequence, error) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return nm.Result(), errorf(CodeNonFinite, "observation is %v", value)
	}
	st := &nm.st
	st.N++
	delta := value - st.Mean
	st.Mean += delta / float64(st.N)
	st.M2 += delta * (value - st.Mean)
	if logE, ok := nm.logE(); ok {
		st.MaxLogE = math.Max(st.MaxLogE, logE)
	}
	return nm.Result(), nil
}

// sigma returns the scale in use, and false when there is none yet.
func (nm *NormalMixture) sigma() (float64, bool) {
	st := &nm.st
	if st.Options.Sigma > 0 {
		return st.Options.Sigma, true
	}
	if st.N < 2 {
		return 0, false
	}
	return math.Sqrt(st.M2 / float64(st.N-1)), true
}

// logE is ln Mₜ at Null, and false when it is undefined (no scale yet, or
// an estimated scale of zero).
func (nm *NormalMixture) logE() (float64, bool) {
	st := &nm.st
	s, ok := nm.sigma()
	if !ok || s == 0 || st.N == 0 {
		return 0, false
	}
	t, r := float64(st.N), st.Options.rho0()
	z := t * (st.Mean - st.Options.Null) / s
	return 0.5*math.Log(r/(t+r)) + z*z/(2*(t+r)), true
}

// Result returns the sequence after the last observation. Before a scale
// is known (no observation, or one with Sigma 0) the bounds are infinite.
func (nm *NormalMixture) Result() ConfidenceSequence {
	st := nm.st
	o := st.Options
	cs := ConfidenceSequence{
		Interval: Interval{Method: NormalMixtureCS, Level: o.Level, Estimate: st.Mean,
			Lower: math.Inf(-1), Upper: math.Inf(1), N: st.N, Units: st.N},
		Alternative: TwoSided, Null: o.Null, MaxEValue: expCapped(st.MaxLogE), PValue: anytimeP(st.MaxLogE),
	}
	logE, ok := nm.logE()
	if !ok {
		logE = 0 // no scale yet, or a zero one: no evidence is reported
	}
	cs.EValue, cs.LogEValue = expCapped(logE), logE
	s, haveScale := nm.sigma()
	if haveScale && st.N > 0 {
		t, r, alpha := float64(st.N), o.rho0(), 1-o.Level
		half := s / t * math.Sqrt((t+r)*math.Log((t+r)/(r*alpha*alpha)))
		cs.Lower, cs.Upper, cs.StdErr = st.Mean-half, st.Mean+half, s/math.Sqrt(t)
	}
	if o.Sigma == 0 && st.N < FewUnits {
		cs.Warnings = append(cs.Warnings, warnf(WarnFewUnits,
			"%d observations with an estimated standard deviation: the normal-mixture sequence is asymptotic; use a known Sigma, or BettingSequence for bounded values", st.N))
	}
	if haveScale && s == 0 && st.N > 0 {
		cs.Warnings = append(cs.Warnings, warnf(WarnDegenerate,
			"the %d observations are all equal: the estimated standard deviation is 0, the sequence has zero width and the e-value is reported as 1", st.N))
	}
	return cs
}
