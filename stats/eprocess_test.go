package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ratBetaIntegral returns ∫_lo^hi p^(A−1) (1−p)^(B−1) dp exactly, for
// integers A, B ≥ 1, by expanding (1−p)^(B−1) with the binomial theorem:
// Σ_j C(B−1, j)(−1)^j (hi^(A+j) − lo^(A+j))/(A+j). Exact rationals, so the
// alternating sum loses nothing; it shares no code with the package.
func ratBetaIntegral(A, B int, lo, hi *big.Rat) *big.Rat {
	sum := new(big.Rat)
	for j := 0; j <= B-1; j++ {
		c := new(big.Int).Binomial(int64(B-1), int64(j))
		e := A + j
		term := new(big.Rat).Sub(ratPow(hi, e), ratPow(lo, e))
		term.Mul(term, new(big.Rat).SetFrac(c, big.NewInt(int64(e))))
		if j%2 == 1 {
			term.Neg(term)
		}
		sum.Add(sum, term)
	}
	return sum
}

func ratPow(x *big.Rat, e int) *big.Rat {
	r := big.NewRat(1, 1)
	for range e {
		r.Mul(r, x)
	}
	return r
}

// ratLog returns ln x for a positive rational, through a 256-bit float's
// mantissa and exponent.
func ratLog(x *big.Rat) float64 {
	f := new(big.Float).SetPrec(256).SetRat(x)
	mant := new(big.Float)
	exp := f.MantExp(mant)
	m, _ := mant.Float64()
	return math.Log(m) + float64(exp)*math.Ln2
}

// referenceLogE is the Beta-mixture sign-test e-value in exact rational
// arithmetic: the mixture of the likelihood ratios over the (truncated)
// prior, divided by the null likelihood 2^−n.
func referenceLogE(alt Alternative, a, b, w, l int) float64 {
	zero, half, one := big.NewRat(0, 1), big.NewRat(1, 2), big.NewRat(1, 1)
	lo, hi := zero, one
	switch alt {
	case Greater:
		lo = half
	case Less:
		hi = half
	}
	num := ratBetaIntegral(a+w, b+l, lo, hi)
	den := ratBetaIntegral(a, b, lo, hi)
	e := new(big.Rat).Quo(num, den)
	e.Mul(e, ratPow(big.NewRat(2, 1), w+l))
	return ratLog(e)
}

// numericLogE integrates the mixture with Simpson's rule on 20 000
// intervals, for priors that are not integers (a, b > 2 so the integrand
// is smooth at the ends).
func numericLogE(alt Alternative, a, b float64, w, l int) float64 {
	lo, hi := 0.0, 1.0
	switch alt {
	case Greater:
		lo = 0.5
	case Less:
		hi = 0.5
	}
	integrate := func(f func(p float64) float64) float64 {
		const n = 20_000
		h := (hi - lo) / n
		s := f(lo) + f(hi)
		for i := 1; i < n; i++ {
			wgt := 2.0
			if i%2 == 1 {
				wgt = 4
			}
			s += wgt * f(lo+float64(i)*h)
		}
		return s * h / 3
	}
	// Scale the integrand by 2^n inside, so it stays near the e-value.
	n := float64(w + l)
	num := integrate(func(p float64) float64 {
		return math.Exp((a+float64(w)-1)*math.Log(p) + (b+float64(l)-1)*math.Log(1-p) + n*math.Ln2)
	})
	den := integrate(func(p float64) float64 { return math.Exp((a-1)*math.Log(p) + (b-1)*math.Log(1-p)) })
	return math.Log(num / den)
}

func TestSignTestLogEExactReference(t *testing.T) {
	counts := [][2]int{{0, 0}, {1, 0}, {0, 1}, {5, 3}, {10, 0}, {0, 10}, {30, 12}, {12, 30}, {120, 95}}
	priors := [][2]int{{1, 1}, {2, 2}, {7, 3}, {3, 7}}
	for _, alt := range []Alternative{TwoSided, Greater, Less} {
		for _, pr := range priors {
			for _, c := range counts {
				name := fmt.Sprintf("%s/Beta(%d,%d)/w=%d,l=%d", alt, pr[0], pr[1], c[0], c[1])
				got, err := SignTestLogE(c[0], c[1], SignTestOptions{Alternative: alt, PriorA: float64(pr[0]), PriorB: float64(pr[1])})
				if err != nil {
					t.Fatal(err)
				}
				want := referenceLogE(alt, pr[0], pr[1], c[0], c[1])
				if math.Abs(got-want) > 1e-11*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: log E = %.15g, exact %.15g", name, got, want)
				}
			}
		}
	}
}

func TestSignTestLogENumericReference(t *testing.T) {
	for _, alt := range []Alternative{TwoSided, Greater, Less} {
		for _, pr := range [][2]float64{{2.5, 3.5}, {3.5, 2.5}, {4.2, 3.3}} {
			for _, c := range [][2]int{{0, 0}, {3, 1}, {1, 3}, {25, 9}, {9, 25}} {
				got, err := SignTestLogE(c[0], c[1], SignTestOptions{Alternative: alt, PriorA: pr[0], PriorB: pr[1]})
				if err != nil {
					t.Fatal(err)
				}
				want := numericLogE(alt, pr[0], pr[1], c[0], c[1])
				if math.Abs(got-want) > 1e-8 {
					t.Errorf("%s Beta(%v,%v) w=%d l=%d: log E = %.12g, Simpson %.12g", alt, pr[0], pr[1], c[0], c[1], got, want)
				}
			}
		}
	}
}

// TestFutilityLogEExactReference: the futility e-processes against
// p ≥ p₁ and p ≤ 1 − p₁ in exact rationals: the prior mass below p₁ (or
// above 1 − p₁) mixes the likelihood ratios against p₁ (or 1 − p₁).
func TestFutilityLogEExactReference(t *testing.T) {
	for _, f := range []*big.Rat{big.NewRat(3, 5), big.NewRat(7, 10)} {
		p1, _ := f.Float64()
		q := new(big.Rat).Sub(big.NewRat(1, 1), f) // 1 − p₁
		for _, pr := range [][2]int{{1, 1}, {7, 3}} {
			o, _ := SignTestOptions{Alternative: Greater, Futility: p1, PriorA: float64(pr[0]), PriorB: float64(pr[1])}.resolve()
			for _, c := range [][2]int{{0, 0}, {3, 1}, {1, 3}, {20, 25}, {60, 40}} {
				w, l := c[0], c[1]
				// Against p ≥ p₁: mixture over [0, p₁], divided by p₁^w (1−p₁)^l.
				num := ratBetaIntegral(pr[0]+w, pr[1]+l, big.NewRat(0, 1), f)
				den := ratBetaIntegral(pr[0], pr[1], big.NewRat(0, 1), f)
				den.Mul(den, new(big.Rat).Mul(ratPow(f, w), ratPow(q, l)))
				want := ratLog(new(big.Rat).Quo(num, den))
				if got := futilityLogE(o, w, l, false); math.Abs(got-want) > 1e-11*math.Max(1, math.Abs(want)) {
					t.Errorf("p₁=%v Beta%v w=%d l=%d: below %.15g, exact %.15g", p1, pr, w, l, got, want)
				}
				// Against p ≤ 1 − p₁: mixture over [1 − p₁, 1].
				num = ratBetaIntegral(pr[0]+w, pr[1]+l, q, big.NewRat(1, 1))
				den = ratBetaIntegral(pr[0], pr[1], q, big.NewRat(1, 1))
				den.Mul(den, new(big.Rat).Mul(ratPow(q, w), ratPow(f, l)))
				want = ratLog(new(big.Rat).Quo(num, den))
				if got := futilityLogE(o, w, l, true); math.Abs(got-want) > 1e-11*math.Max(1, math.Abs(want)) {
					t.Errorf("p₁=%v Beta%v w=%d l=%d: above %.15g, exact %.15g", p1, pr, w, l, got, want)
				}
			}
		}
	}
}

// Values worked by hand: a uniform prior gives E = 2ⁿ·w!·l!/(n+1)!
// two-sided; the one-sided uniform prior on (½, 1] has density 2, so one
// win gives ∫ 2·2p dp over (½, 1] = 3/2.
func TestSignTestHandValues(t *testing.T) {
	for _, tc := range []struct {
		alt  Alternative
		w, l int
		want float64
	}{
		{TwoSided, 0, 0, 1},
		{TwoSided, 1, 0, 1},
		{TwoSided, 10, 0, 1024.0 / 11},
		{TwoSided, 2, 1, 8.0 * 2 / 24},
		{Greater, 1, 0, 1.5},
		{Greater, 0, 1, 0.5},
		{Less, 0, 1, 1.5},
	} {
		got, err := SignTestLogE(tc.w, tc.l, SignTestOptions{Alternative: tc.alt})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(math.Exp(got)-tc.want) > 1e-12*tc.want {
			t.Errorf("%s w=%d l=%d: E = %.15g, want %.15g", tc.alt, tc.w, tc.l, math.Exp(got), tc.want)
		}
	}
}

func TestSignTestStopsAtThreshold(t *testing.T) {
	// Two-sided, uniform prior: E after k straight wins is 2^k/(k+1);
	// 2^7/8 = 16 < 20 ≤ 2^8/9 = 28.4, so the eighth win crosses at α = 0.05.
	st, err := NewSignTest(SignTestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var r SignTestResult
	for i := range 8 {
		st.Observe(true, true) // concordant: counted, no evidence
		r = st.Observe(false, true)
		if i < 7 && r.Stop != Continuing {
			t.Fatalf("stopped after %d wins: %+v", i+1, r)
		}
	}
	if r.Stop != Crossed || r.Pairs != 16 || r.Wins != 8 || r.Direction != Greater {
		t.Fatalf("after 8 wins: %+v, want crossed at 16 pairs, direction greater", r)
	}
	if want := 256.0 / 9; math.Abs(r.EValue-want) > 1e-12 || math.Abs(r.PValue-1/want) > 1e-15 {
		t.Errorf("E %v p %v, want %v and %v", r.EValue, r.PValue, want, 1/want)
	}
	frozen := st.Observe(true, false)
	if diff := cmp.Diff(r, frozen); diff != "" {
		t.Errorf("a stopped test changed (-before +after):\n%s", diff)
	}
}

func TestSignTestDirection(t *testing.T) {
	st, _ := NewSignTest(SignTestOptions{})
	var r SignTestResult
	for range 7 {
		if r = st.Observe(true, false); r.Direction != "" {
			t.Fatalf("direction %q before crossing", r.Direction)
		}
	}
	if r = st.Observe(true, false); r.Stop != Crossed || r.Direction != Less {
		t.Fatalf("8 losses: %+v, want crossed, direction less", r)
	}
}

func TestSignTestMinMaxAndRunningMax(t *testing.T) {
	st, _ := NewSignTest(SignTestOptions{MinPairs: 20, MaxPairs: 30})
	var r SignTestResult
	for range 10 {
		r = st.Observe(false, true)
	}
	if r.Stop != Continuing || r.MaxEValue < 20 {
		t.Fatalf("before MinPairs: %+v", r)
	}
	// Losses bring E down, but the running maximum already crossed.
	for range 10 {
		r = st.Observe(true, false)
	}
	if r.Stop != Crossed || r.Pairs != 20 || r.EValue >= 20 || r.PValue > 0.05 {
		t.Fatalf("at MinPairs: %+v, want crossed by the running maximum", r)
	}
	st, _ = NewSignTest(SignTestOptions{MaxPairs: 5})
	for range 5 {
		r = st.Observe(true, true)
	}
	if r.Stop != MaxReached || r.Pairs != 5 || r.PValue != 1 {
		t.Fatalf("at the cap: %+v", r)
	}
}

func TestSignTestFutility(t *testing.T) {
	// Alternating wins and losses: the win-rate sequence shrinks around ½
	// and, for Greater, eventually excludes 0.7.
	st, _ := NewSignTest(SignTestOptions{Alternative: Greater, Futility: 0.7})
	var r SignTestResult
	for i := 0; i < 1000 && r.Stop != Futile; i++ {
		r = st.Observe(i%2 == 0, i%2 == 1)
	}
	if r.Stop != Futile || r.PValue != 1 {
		t.Fatalf("no futility stop: %+v", r)
	}
	t.Logf("futile after %d pairs, win rate %v", r.Pairs, r.WinRate)
}

// TestSignTestWinRateCS checks the bounds at given counts against a scan
// of 10⁶ points of the defining inequality, written out here from the
// formula. (A SignTest stops at its first crossing, so the bounds are
// checked on the function it calls after each pair.)
func TestSignTestWinRateCS(t *testing.T) {
	o, _ := SignTestOptions{}.resolve()
	for _, c := range [][2]int{{1, 0}, {0, 1}, {3, 2}, {17, 5}, {40, 60}, {0, 30}} {
		gotLo, gotHi := winRateCS(o, c[0], c[1])
		w, l := float64(c[0]), float64(c[1])
		lb := func(x, y float64) float64 {
			a, _ := math.Lgamma(x)
			b, _ := math.Lgamma(y)
			s, _ := math.Lgamma(x + y)
			return a + b - s
		}
		thr := lb(1+w, 1+l) - lb(1, 1) - math.Log(20)
		lo, hi := 1.0, 0.0
		const n = 1_000_000
		for i := 0; i <= n; i++ {
			p := float64(i) / n
			ll := 0.0
			if w > 0 {
				ll += w * math.Log(p)
			}
			if l > 0 {
				ll += l * math.Log(1-p)
			}
			if ll > thr {
				lo, hi = math.Min(lo, p), math.Max(hi, p)
			}
		}
		// The bounds contain every point of the scan and lie within one
		// scan step of its ends.
		if gotLo > lo || gotHi < hi || lo-gotLo > 1.01e-6 || gotHi-hi > 1.01e-6 {
			t.Errorf("w=%v l=%v: [%.9f, %.9f], scan [%.9f, %.9f]", w, l, gotLo, gotHi, lo, hi)
		}
	}
}

func TestSignTestResumeIsBitIdentical(t *testing.T) {
	for _, opts := range []SignTestOptions{
		{}, {Alternative: Greater, PriorA: 7, PriorB: 3, Futility: 0.65}, {Alternative: Less, Level: 0.9, MaxPairs: 150},
	} {
		rng := rand.New(rand.NewPCG(7, 11))
		pairs := make([][2]bool, 150)
		for i := range pairs {
			pairs[i] = [2]bool{rng.Float64() < 0.5, rng.Float64() < 0.58}
		}
		whole, err := NewSignTest(opts)
		if err != nil {
			t.Fatal(err)
		}
		var want []SignTestResult
		for _, p := range pairs {
			want = append(want, whole.Observe(p[0], p[1]))
		}
		// Save and resume through JSON after every pair.
		cur, _ := NewSignTest(opts)
		for i, p := range pairs {
			blob, err := json.Marshal(cur.State())
			if err != nil {
				t.Fatal(err)
			}
			var st SignTestState
			if err := json.Unmarshal(blob, &st); err != nil {
				t.Fatal(err)
			}
			if cur, err = ResumeSignTest(st); err != nil {
				t.Fatalf("pair %d: %v (state %s)", i, err, blob)
			}
			if diff := cmp.Diff(want[i], cur.Observe(p[0], p[1])); diff != "" {
				t.Fatalf("%+v: pair %d after resume (-whole +resumed):\n%s", opts, i, diff)
			}
		}
	}
}

func TestSignTestRejectsInvalid(t *testing.T) {
	for _, opts := range []SignTestOptions{
		{Alternative: "up"}, {Level: 0.9999}, {PriorA: -1}, {PriorB: math.Inf(1)},
		{MinPairs: 10, MaxPairs: 5}, {MaxPairs: -1}, {Futility: 0.4}, {Futility: 1},
	} {
		if _, err := NewSignTest(opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
	if _, err := NewSignTest(SignTestOptions{Futility: 0.3, PriorA: -2}); !errors.Is(err, ErrConfig) {
		t.Errorf("want ErrConfig, got %v", err)
	}
	good, _ := NewSignTest(SignTestOptions{})
	good.Observe(false, true)
	for name, mutate := range map[string]func(*SignTestState){
		"counts":     func(s *SignTestState) { s.Wins = 5 },
		"max":        func(s *SignTestState) { s.MaxLogE = -1 },
		"bounds":     func(s *SignTestState) { s.Lower = 2 },
		"stop":       func(s *SignTestState) { s.Stop = "done" },
		"direction":  func(s *SignTestState) { s.Direction = Greater },
		"unresolved": func(s *SignTestState) { s.Options.Level = 0 },
	} {
		st := good.State()
		mutate(&st)
		if _, err := ResumeSignTest(st); err == nil {
			t.Errorf("%s: resumed an invalid state", name)
		}
	}
}

// exactLogI is ln I_x(A, B) for integers from the binomial identity
// I_x(A, B) = P(Bin(A+B−1, x) ≥ A), summed in exact rationals.
func exactLogI(A, B int, x *big.Rat) float64 {
	n := A + B - 1
	one := big.NewRat(1, 1)
	q := new(big.Rat).Sub(one, x)
	term := new(big.Rat).Mul(ratPow(x, A), ratPow(q, n-A))
	term.Mul(term, new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(A))))
	ratio := new(big.Rat).Quo(x, q)
	sum := new(big.Rat).Set(term)
	for i := A; i < n; i++ {
		term.Mul(term, big.NewRat(int64(n-i), int64(i+1)))
		term.Mul(term, ratio)
		sum.Add(sum, term)
	}
	return ratLog(sum)
}

// TestLogRegIncBetaExact compares the continued fraction with exact
// binomial tails, from near 1 down to 1e-600 (compared in logs).
func TestLogRegIncBetaExact(t *testing.T) {
	for _, tc := range []struct {
		A, B int
		x    *big.Rat
	}{
		{1, 1, big.NewRat(1, 2)}, {2, 5, big.NewRat(1, 2)}, {5, 2, big.NewRat(1, 2)},
		{30, 31, big.NewRat(3, 10)}, {200, 150, big.NewRat(1, 2)}, {150, 200, big.NewRat(3, 10)},
		{150, 200, big.NewRat(77, 100)}, {700, 650, big.NewRat(1, 2)}, {40, 600, big.NewRat(1, 2)},
		{600, 40, big.NewRat(3, 10)}, {1200, 1, big.NewRat(1, 2)}, {1, 1200, big.NewRat(1, 2)},
	} {
		x, _ := tc.x.Float64()
		got := logRegIncBeta(x, float64(tc.A), float64(tc.B))
		want := exactLogI(tc.A, tc.B, tc.x)
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("ln I_%v(%d,%d) = %.15g, exact %.15g", x, tc.A, tc.B, got, want)
		}
	}
}
