package stats

import "math"

// The sequential (anytime-valid) methods. They are not interval methods of
// [Mean] (which refuses them); they name the Method of the results of
// [SignTest], [BettingSequence], [EBSequence] and [NormalMixture].
const (
	SignTestMixture Method = "sign-test-beta-mixture" // e-process on discordant pairs
	BettingCS       Method = "betting-cs"             // hedged capital, Waudby-Smith & Ramdas
	PrPlEBCS        Method = "prpl-eb-cs"             // predictable-mixture empirical Bernstein
	NormalMixtureCS Method = "normal-mixture-cs"      // Robbins' normal mixture / mSPRT boundary
)

// Alternative is the direction a sequential test looks for.
type Alternative string

// The alternatives. The zero Alternative ("") means TwoSided.
const (
	TwoSided Alternative = "two-sided"
	// Greater: the candidate is better (an improvement): it wins more than
	// half of the discordant pairs, or the mean is above the null value.
	Greater Alternative = "greater"
	// Less: the candidate is worse (a regression).
	Less Alternative = "less"
)

// StopReason says why a sequential procedure stopped, or that it has not.
type StopReason string

// The stop reasons.
const (
	// Continuing: no decision yet; another observation may be added.
	Continuing StopReason = "continuing"
	// Crossed: the e-process reached 1/α: the null hypothesis is rejected
	// with type I error at most α, whenever this happened.
	Crossed StopReason = "crossed"
	// Futile: the confidence sequence excludes every effect worth
	// detecting (the futility threshold), so more data is not worth it.
	Futile StopReason = "futile"
	// MaxReached: the cap on observations was reached without a decision.
	MaxReached StopReason = "max-reached"
)

// resolveAlternative applies the default and checks the value.
func resolveAlternative(a Alternative) (Alternative, error) {
	switch a {
	case "":
		return TwoSided, nil
	case TwoSided, Greater, Less:
		return a, nil
	}
	return "", errorf(CodeConfig, "Alternative is %q, want \"\" (default %q), %q or %q", string(a), TwoSided, Greater, Less)
}

// anytimeP is the anytime-valid p-value of an e-process whose running
// maximum is exp(maxLogE): min(1, 1/sup E). By Ville's inequality
// P(∃t: p_t ≤ α) ≤ α under the null.
func anytimeP(maxLogE float64) float64 {
	return math.Min(1, math.Exp(-maxLogE))
}

// expCapped returns exp(x) capped at math.MaxFloat64, so that results
// stay JSON-encodable; the log value is reported alongside.
func expCapped(x float64) float64 {
	return math.Min(math.Exp(x), math.MaxFloat64)
}

// lbeta returns ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a+b) for a, b > 0.
func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// logRegIncBeta returns ln I_x(a, b), the log of the regularized
// incomplete beta function, for 0 < x < 1 and a, b > 0. Below the mean
// (x < (a+1)/(a+b+2)) it evaluates the continued fraction of Numerical
// Recipes (3rd ed., §6.4, modified Lentz) directly, so a tiny I keeps its
// relative accuracy; above, it uses I_x(a,b) = 1 − I_{1−x}(b,a), which is
// then at least about one half.
func logRegIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return math.Inf(-1)
	case x >= 1:
		return 0
	}
	if x < (a+1)/(a+b+2) {
		return logIncBetaCF(x, a, b)
	}
	return math.Log1p(-math.Exp(logIncBetaCF(1-x, b, a)))
}

// logIncBetaCF is ln of x^a (1−x)^b / (a B(a,b)) times the continued
// fraction of I_x(a, b).
func logIncBetaCF(x, a, b float64) float64 {
	const (
		tiny  = 1e-300
		eps   = 1e-16
		iters = 10000
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= iters; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return a*math.Log(x) + b*math.Log1p(-x) - lbeta(a, b) - math.Log(a) + math.Log(h)
}

// bisectBound narrows [in, out] — in(inside) holds and in(outside) does not,
// with in monotone between them — to within tol, and returns the last
// point known to be outside. A confidence bound taken from it rounds
// outwards, so the reported set contains the exact one.
func bisectBound(inside, outside, tol float64, in func(float64) bool) float64 {
	for i := 0; i < 200 && math.Abs(outside-inside) > tol; i++ {
		mid := inside + (outside-inside)/2
		if in(mid) {
			inside = mid
		} else {
			outside = mid
		}
	}
	return outside
}
