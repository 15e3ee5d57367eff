package stats

import "math"

// EBState is everything an [EBSequence] needs to continue, as plain JSON:
// a few running sums. Pass it to [ResumeEB].
type EBState struct {
	Options CSOptions `json:"options"`
	N       int       `json:"n"`
	Sum     float64   `json:"sum"`       // Σ xᵢ on the [0, 1] scale
	SumSq   float64   `json:"sum_sq"`    // Σ (xᵢ − μ̂ᵢ)², for σ̂²
	SumLam  float64   `json:"sum_lam"`   // Σ λᵢ
	SumLamX float64   `json:"sum_lam_x"` // Σ λᵢ xᵢ
	SumVPsi float64   `json:"sum_v_psi"` // Σ vᵢ ψ_E(λᵢ)
	MaxLogE float64   `json:"max_log_e"`
	Lower   float64   `json:"lower"` // running intersection, [0, 1] scale
	Upper   float64   `json:"upper"`
}

// EBSequence is the predictable-mixture empirical-Bernstein (PrPl-EB)
// confidence sequence of Waudby-Smith & Ramdas (JRSS-B 2024): closed
// form, O(1) per observation, a little wider than
// [BettingSequence]. Values in [Min, Max] are mapped to [0, 1]:
//
//	λᵢ = min(√(2 ln(2/α) / (σ̂²ᵢ₋₁ · i · ln(1+i))), c)
//	vᵢ = 4(xᵢ − μ̂ᵢ₋₁)²,  ψ_E(λ) = (−ln(1−λ) − λ)/4
//	Cₜ = Σλᵢxᵢ/Σλᵢ ± (ln(2/α) + Σ vᵢψ_E(λᵢ)) / Σλᵢ
//
// with μ̂ and σ̂² as in [BettingSequence] (μ̂₀ = ½, σ̂²₀ = ¼), c = Trunc,
// and ln(1/α) in place of ln(2/α) for a one-sided sequence (Greater keeps
// only the lower bound, Less only the upper; the other, at the same
// level, is its far bound, ConfidenceSequence.Far, for futility alone).
// The bounds are clipped to [0, 1] and intersected over time.
//
// Guarantee. For each m, exp(±Σλᵢ(xᵢ − m) − Σvᵢψ_E(λᵢ)) is a nonnegative
// supermartingale under the mean m (the empirical-Bernstein inequality of
// Fan, Grama & Liu for λ ∈ [0, 1)), so by Ville's inequality
// P(∃t: mean ∉ Cₜ) ≤ α. The e-value for Null is half the larger of the
// two (the one of a one-sided sequence), dominated by their average, a
// test supermartingale; it reaches 1/α exactly when the sequence excludes
// Null. The sampling designs that make it valid are those of
// [BettingSequence].
type EBSequence struct {
	st EBState
}

// NewEBSequence starts a sequence with no observations. Grid is ignored.
func NewEBSequence(opts CSOptions) (*EBSequence, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &EBSequence{st: EBState{Options: o, Lower: 0, Upper: 1}}, nil
}

// ResumeEB continues a sequence from a state saved with
// [EBSequence.State]; the results are bit-identical to a sequence that
// never stopped.
func ResumeEB(st EBState) (*EBSequence, error) {
	o, err := st.Options.resolve()
	if err != nil {
		return nil, err
	}
	if o != st.Options {
		return nil, errorf(CodeArgument, "state options are not resolved (%+v); save states with EBSequence.State", st.Options)
	}
	if st.N < 0 || !(0 <= st.Lower && st.Upper <= 1) || !(st.MaxLogE >= 0) {
		return nil, errorf(CodeArgument, "state is invalid: n %d, bounds [%v, %v], max_log_e %v", st.N, st.Lower, st.Upper, st.MaxLogE)
	}
	return &EBSequence{st: st}, nil
}

// State returns the sequence's state, for [ResumeEB].
func (e *EBSequence) State() EBState { return e.st }

// Observe adds one observation and returns the sequence after it. A value
// outside [Min, Max] or not finite is refused and leaves the sequence
// unchanged.
func (e *EBSequence) Observe(value float64) (ConfidenceSequence, error) {
	st := &e.st
	o := st.Options
	if err := o.checkValue(value); err != nil {
		return e.Result(), err
	}
	x := o.scale(value)
	t := float64(st.N + 1)
	sigma2 := (0.25 + st.SumSq) / t // σ̂²_{t−1}
	muPrev := (0.5 + st.Sum) / t    // μ̂_{t−1}
	lam := math.Min(math.Sqrt(2*math.Log(o.sides()/(1-o.Level))/(sigma2*t*math.Log1p(t))), o.Trunc)
	dev := x - muPrev
	st.SumVPsi += dev * dev * (-math.Log1p(-lam) - lam) // vᵢψ_E(λᵢ) = 4dev²·(…)/4
	st.SumLam += lam
	st.SumLamX += lam * x
	st.Sum += x
	mu := (0.5 + st.Sum) / (t + 1)
	st.SumSq += (x - mu) * (x - mu)
	st.N++
	st.MaxLogE = math.Max(st.MaxLogE, e.logE())
	lo, hi := e.bounds()
	st.Lower, st.Upper = math.Max(st.Lower, lo), math.Min(st.Upper, hi)
	return e.Result(), nil
}

// logE is ln of the e-value for Null.
func (e *EBSequence) logE() float64 {
	st := &e.st
	o := st.Options
	drift := st.SumLamX - o.scale(o.Null)*st.SumLam
	return hedgedLogE(o.theta(), drift-st.SumVPsi, -drift-st.SumVPsi)
}

// bounds returns the current (not intersected) sequence on [0, 1].
func (e *EBSequence) bounds() (lo, hi float64) {
	lo, hi = e.both()
	switch e.st.Options.Alternative {
	case Greater:
		hi = 1
	case Less:
		lo = 0
	}
	return lo, hi
}

// far is the far bound of a one-sided sequence on [0, 1] (see
// ConfidenceSequence.Far): the other side of the same margin, whose
// supermartingale holds at the same level.
func (e *EBSequence) far() float64 {
	lo, hi := e.both()
	switch e.st.Options.Alternative {
	case Greater:
		return hi
	case Less:
		return lo
	}
	return 0
}

// both returns both sides of the current sequence on [0, 1], each at the
// level's margin for the alternative.
func (e *EBSequence) both() (lo, hi float64) {
	st := &e.st
	o := st.Options
	if st.SumLam == 0 {
		return 0, 1
	}
	center := st.SumLamX / st.SumLam
	margin := (math.Log(o.sides()/(1-o.Level)) + st.SumVPsi) / st.SumLam
	return math.Max(0, center-margin), math.Min(1, center+margin)
}

// Result returns the sequence after the last observation.
func (e *EBSequence) Result() ConfidenceSequence {
	st := e.st
	return csResult(st.Options, PrPlEBCS, st.N, st.Sum, st.Lower, st.Upper, e.far(), e.logE(), st.MaxLogE)
}
