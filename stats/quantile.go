package stats

import "math"

// NormalQuantile returns z such that Φ(z) = p for the standard normal
// distribution, or NaN when p is outside (0, 1) (−Inf at 0, +Inf at 1).
//
// It is Wichura's rational approximation, Algorithm AS 241 (PPND16),
// Applied Statistics 37(3):477–484, 1988, accurate to about 1 part in 10¹⁶:
// z₀.₉₇₅ = 1.959963984540054.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	q := p - 0.5
	if math.Abs(q) <= 0.425 {
		r := 0.180625 - q*q
		num := ((((((2.5090809287301226727e+3*r+3.3430575583588128105e+4)*r+
			6.7265770927008700853e+4)*r+4.5921953931549871457e+4)*r+
			1.3731693765509461125e+4)*r+1.9715909503065514427e+3)*r+
			1.3314166789178437745e+2)*r + 3.3871328727963666080e0
		den := ((((((5.2264952788528545610e+3*r+2.8729085735721942674e+4)*r+
			3.9307895800092710610e+4)*r+2.1213794301586595867e+4)*r+
			5.3941960214247511077e+3)*r+6.8718700749205790830e+2)*r+
			4.2313330701600911252e+1)*r + 1
		return q * num / den
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	r = math.Sqrt(-math.Log(r))
	var z float64
	if r <= 5 {
		r -= 1.6
		num := ((((((7.74545014278341407640e-4*r+2.27238449892691845833e-2)*r+
			2.41780725177450611770e-1)*r+1.27045825245236838258e0)*r+
			3.64784832476320460504e0)*r+5.76949722146069140550e0)*r+
			4.63033784615654529590e0)*r + 1.42343711074968357734e0
		den := ((((((1.05075007164441684324e-9*r+5.47593808499534494600e-4)*r+
			1.51986665636164571966e-2)*r+1.48103976427480074590e-1)*r+
			6.89767334985100004550e-1)*r+1.67638483018380384940e0)*r+
			2.05319162663775882187e0)*r + 1
		z = num / den
	} else {
		r -= 5
		num := ((((((2.01033439929228813265e-7*r+2.71155556874348757815e-5)*r+
			1.24266094738807843860e-3)*r+2.65321895265761230930e-2)*r+
			2.96560571828504891230e-1)*r+1.78482653991729133580e0)*r+
			5.46378491116411436990e0)*r + 6.65790464350110377720e0
		den := ((((((2.04426310338993978564e-15*r+1.42151175831644588870e-7)*r+
			1.84631831751005468180e-5)*r+7.86869131145613259100e-4)*r+
			1.48753612908506148525e-2)*r+1.36929880922735805310e-1)*r+
			5.99832206555887937690e-1)*r + 1
		z = num / den
	}
	if q < 0 {
		return -z
	}
	return z
}

// NormalCDF returns Φ(x) = ½·erfc(−x/√2), the standard normal distribution
// function (Abramowitz & Stegun 26.2.29).
func NormalCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/math.Sqrt2)
}

// tSeriesMaxDF is the largest df for which the t distribution function is
// evaluated by its finite series; above it the Cornish–Fisher expansion is
// accurate to well below 1e-13.
const tSeriesMaxDF = 2000

// StudentTCDF returns P(T ≤ t) for Student's t distribution with df degrees
// of freedom (NaN when df < 1 or t is NaN).
//
// It sums the finite series of Abramowitz & Stegun 26.7.3 for
// A(t|ν) = P(|T| ≤ t), with θ = atan(t/√ν):
//
//	ν odd:  A = (2/π)·(θ + sinθ·[cosθ + (2/3)cos³θ + … + (2·4⋯(ν−3))/(1·3⋯(ν−2))·cos^(ν−2)θ])
//	ν even: A = sinθ·[1 + (1/2)cos²θ + (1·3)/(2·4)cos⁴θ + … + (1·3⋯(ν−3))/(2·4⋯(ν−2))·cos^(ν−2)θ]
//
// and P(T ≤ t) = ½ + A/2 for t ≥ 0. For df above 2000 it inverts the
// Cornish–Fisher expansion instead (see [StudentTQuantile]) by Newton steps
// on the normal distribution function.
func StudentTCDF(t float64, df int) float64 {
	if df < 1 || math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	if t < 0 {
		return tUpper(-t, df)
	}
	return 1 - tUpper(t, df)
}

// tUpper returns P(T > t) for t ≥ 0.
func tUpper(t float64, df int) float64 {
	if df > tSeriesMaxDF {
		// Solve cornishFisher(z, df) = t for z; P(T > t) = 1 − Φ(z).
		z := t
		for range 50 {
			g := cornishFisher(z, df) - t
			dz := g / cornishFisherSlope(z, df)
			z -= dz
			if math.Abs(dz) <= 1e-16*math.Max(1, math.Abs(z)) {
				break
			}
		}
		return 0.5 * math.Erfc(z/math.Sqrt2)
	}
	return (1 - tCentral(t, df)) / 2
}

// tCentral returns A(t|ν) = P(|T| ≤ t) for t ≥ 0 by the finite series.
func tCentral(t float64, df int) float64 {
	nu := float64(df)
	c2 := nu / (nu + t*t) // cos²θ
	s := t / math.Sqrt(nu+t*t)
	if df%2 == 0 {
		sum, term := 1.0, 1.0
		for k := 2; k <= df-2; k += 2 {
			term *= float64(k-1) / float64(k) * c2
			sum += term
		}
		return s * sum
	}
	theta := math.Atan(t / math.Sqrt(nu))
	if df == 1 {
		return theta * 2 / math.Pi
	}
	c := math.Sqrt(c2)
	sum, term := c, c
	for k := 3; k <= df-2; k += 2 {
		term *= float64(k-1) / float64(k) * c2
		sum += term
	}
	return 2 / math.Pi * (theta + s*sum)
}

// cornishFisher returns the Cornish–Fisher expansion of the t quantile in
// terms of the normal quantile z (Abramowitz & Stegun 26.7.5).
func cornishFisher(z float64, df int) float64 {
	nu := float64(df)
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + (g1+(g2+(g3+g4/nu)/nu)/nu)/nu
}

// cornishFisherSlope is the derivative of cornishFisher in z.
func cornishFisherSlope(z float64, df int) float64 {
	nu := float64(df)
	z2 := z * z
	d1 := (3*z2 + 1) / 4
	d2 := ((25*z2+48)*z2 + 3) / 96
	d3 := (((21*z2+95)*z2+51)*z2 - 15) / 384
	d4 := ((((711*z2+5432)*z2+7410)*z2-5760)*z2 - 945) / 92160
	return 1 + (d1+(d2+(d3+d4/nu)/nu)/nu)/nu
}

// tDensity returns the t density at t.
func tDensity(t float64, df int) float64 {
	nu := float64(df)
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	return math.Exp(lg1-lg2-(nu+1)/2*math.Log1p(t*t/nu)) / math.Sqrt(nu*math.Pi)
}

// StudentTQuantile returns t such that P(T ≤ t) = p for Student's t
// distribution with df degrees of freedom, or NaN when df < 1 or p is
// outside (0, 1) (±Inf at 0 and 1).
//
// df 1 and 2 have closed forms: t = cot(π(1−p)) and
// t = (2p−1)/√(2p(1−p)). Above 2000 df it is the Cornish–Fisher expansion
// (Abramowitz & Stegun 26.7.5) through ν⁻⁴:
//
//	t = z + g₁/ν + g₂/ν² + g₃/ν³ + g₄/ν⁴, z = Φ⁻¹(p),
//	g₁ = (z³+z)/4, g₂ = (5z⁵+16z³+3z)/96, g₃ = (3z⁷+19z⁵+17z³−15z)/384,
//	g₄ = (79z⁹+776z⁷+1482z⁵−1920z³−945z)/92160.
//
// Otherwise that expansion is the starting point of safeguarded Newton
// iterations on [StudentTCDF], bracketed between the normal quantile and the
// one-degree-of-freedom quantile, so the result solves P(T ≤ t) = p to
// rounding: t₀.₉₇₅,₁ = 12.706204736, t₀.₉₇₅,₄ = 2.776445105,
// t₀.₉₇₅,₂₉ = 2.045229642.
func StudentTQuantile(p float64, df int) float64 {
	switch {
	case df < 1 || math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentTQuantile(1-p, df)
	}
	q := 1 - p // exact for p ≥ 0.5
	switch {
	case df == 1:
		return 1 / math.Tan(math.Pi*q)
	case df == 2:
		return (1 - 2*q) / math.Sqrt(2*q*(1-q))
	}
	z := NormalQuantile(p)
	if df > tSeriesMaxDF {
		return cornishFisher(z, df)
	}
	lo, hi := z, 1/math.Tan(math.Pi*q)
	t := cornishFisher(z, df)
	if !(t > lo && t < hi) {
		t = (lo + hi) / 2
	}
	for range 200 {
		g := tUpper(t, df) - q // decreasing in t
		if g == 0 {
			return t
		}
		if g > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t + g/tDensity(t, df)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-t) <= 4e-16*t {
			return next
		}
		t = next
	}
	return t
}
