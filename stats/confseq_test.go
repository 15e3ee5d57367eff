package stats

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// refBets transcribes the predictable plug-in bets of Waudby-Smith &
// Ramdas (2024) for data on [0, 1]: λ̇ᵢ = √(2 ln(k/α)/(σ̂²ᵢ₋₁ i ln(1+i))),
// μ̂ᵢ = (½ + Σ_{j≤i} xⱼ)/(i+1), σ̂²ᵢ = (¼ + Σ_{j≤i}(xⱼ − μ̂ⱼ)²)/(i+1),
// recomputed from the whole history for every i.
func refBets(x []float64, alpha, k float64) (lam, muPrev []float64) {
	mu := func(i int) float64 { // μ̂ᵢ, i ≥ 0
		s := 0.5
		for _, v := range x[:i] {
			s += v
		}
		return s / float64(i+1)
	}
	for i := 1; i <= len(x); i++ {
		s := 0.25
		for j := 1; j < i; j++ {
			d := x[j-1] - mu(j)
			s += d * d
		}
		sigma2 := s / float64(i)
		lam = append(lam, math.Sqrt(2*math.Log(k/alpha)/(sigma2*float64(i)*math.Log(1+float64(i)))))
		muPrev = append(muPrev, mu(i-1))
	}
	return lam, muPrev
}

// refBettingLower is the exact lower bound of the hedged-capital sequence
// after all of x (not intersected): the smallest m with θK⁺(m) < 1/α,
// found by bisection on the product written out.
func refBettingLower(x []float64, alpha, c, theta float64) float64 {
	lam, _ := refBets(x, alpha, 2)
	in := func(m float64) bool {
		k := theta
		for i, v := range x {
			b := lam[i]
			if m > 0 {
				b = math.Min(b, c/m)
			}
			k *= 1 + b*(v-m)
		}
		return k < 1/alpha
	}
	if in(0) {
		return 0
	}
	lo, hi := 0.0, 1.0
	for range 100 {
		mid := (lo + hi) / 2
		if in(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func TestBettingMatchesTranscription(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const grid = 200
	bs, err := NewBettingSequence(CSOptions{Min: -1, Max: 1, Grid: grid})
	if err != nil {
		t.Fatal(err)
	}
	var x []float64 // on [0, 1]
	running := 0.0
	for i := range 120 {
		d := 0.0 // a paired pass/fail difference: P(+1) = 0.35, P(−1) = 0.15
		switch u := rng.Float64(); {
		case u < 0.35:
			d = 1
		case u < 0.5:
			d = -1
		}
		r, err := bs.Observe(d)
		if err != nil {
			t.Fatal(err)
		}
		x = append(x, (d+1)/2)
		running = math.Max(running, refBettingLower(x, 0.05, 0.5, 0.5))
		// The grid rounds down by less than one step: 2/grid on [−1, 1].
		want := 2*running - 1
		if r.Lower > want+1e-9 || r.Lower < want-2.0/grid-1e-9 {
			t.Errorf("t=%d: lower %v, exact running lower %v (grid step %v)", i+1, r.Lower, want, 2.0/grid)
		}
	}
	// By symmetry the upper bound of x is 1 − the lower bound of 1 − x.
	mirror := make([]float64, len(x))
	for i, v := range x {
		mirror[i] = 1 - v
	}
	r := bs.Result()
	exactUpper := 1.0
	for i := 1; i <= len(mirror); i++ {
		exactUpper = math.Min(exactUpper, 2*(1-refBettingLower(mirror[:i], 0.05, 0.5, 0.5))-1)
	}
	if r.Upper < exactUpper-1e-9 || r.Upper > exactUpper+2.0/grid+1e-9 {
		t.Errorf("upper %v, exact running upper %v", r.Upper, exactUpper)
	}
	if r.Lower > r.Upper || r.Lower > 0.2 || r.Upper < 0.2 {
		t.Errorf("sequence %v does not hold the mean 0.2", r)
	}
}

// refEB transcribes the PrPl-EB sequence of Waudby-Smith & Ramdas (2024)
// on [0, 1] from the whole history at every t, intersected over time.
func refEB(x []float64, alpha, c float64) (lo, hi float64) {
	lo, hi = 0, 1
	for t := 1; t <= len(x); t++ {
		lam, muPrev := refBets(x[:t], alpha, 2)
		var sl, slx, svp float64
		for i := range t {
			l := math.Min(lam[i], c)
			v := 4 * (x[i] - muPrev[i]) * (x[i] - muPrev[i])
			sl += l
			slx += l * x[i]
			svp += v * (-math.Log(1-l) - l) / 4
		}
		margin := (math.Log(2/alpha) + svp) / sl
		lo = math.Max(lo, math.Max(0, slx/sl-margin))
		hi = math.Min(hi, math.Min(1, slx/sl+margin))
	}
	return lo, hi
}

func TestEBMatchesTranscription(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	eb, err := NewEBSequence(CSOptions{Min: -1, Max: 1, Trunc: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	var x []float64
	for i := range 150 {
		d := float64(rng.IntN(3) - 1)
		r, err := eb.Observe(d)
		if err != nil {
			t.Fatal(err)
		}
		x = append(x, (d+1)/2)
		if i%15 != 14 {
			continue
		}
		lo, hi := refEB(x, 0.05, 0.75)
		if math.Abs(r.Lower-(2*lo-1)) > 1e-12 || math.Abs(r.Upper-(2*hi-1)) > 1e-12 {
			t.Errorf("t=%d: [%v, %v], transcription [%v, %v]", i+1, r.Lower, r.Upper, 2*lo-1, 2*hi-1)
		}
	}
}

func TestNormalMixtureMatchesTranscription(t *testing.T) {
	// Worked by hand: α = 0.05, t* = 100: L = 2 ln 20, r₀ = 100/(L + ln(1+L))
	// = 12.6005; at t = 100 with σ = 1 the half-width is
	// √(112.6005 · ln(112.6005/(12.6005 · 0.0025)))/100 = 0.30352.
	nm, err := NewNormalMixture(NormalMixtureOptions{Sigma: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var r ConfidenceSequence
	sum := 0.0
	for range 100 {
		v := rng.NormFloat64()
		sum += v
		if r, err = nm.Observe(v); err != nil {
			t.Fatal(err)
		}
	}
	if half := (r.Upper - r.Lower) / 2; math.Abs(half-0.30352) > 5e-5 {
		t.Errorf("half-width %v, want 0.30352", half)
	}
	l := 2 * math.Log(20)
	r0 := 100 / (l + math.Log(1+l))
	z := sum // σ = 1, Null = 0
	wantLogE := 0.5*math.Log(r0/(100+r0)) + z*z/(2*(100+r0))
	if math.Abs(r.LogEValue-wantLogE) > 1e-12 || math.Abs(r.Estimate-sum/100) > 1e-14 {
		t.Errorf("log E %v, want %v; mean %v, want %v", r.LogEValue, wantLogE, r.Estimate, sum/100)
	}
	// The same precision given directly gives the same sequence.
	byRho, _ := NewNormalMixture(NormalMixtureOptions{Sigma: 1, Rho: r0})
	rng = rand.New(rand.NewPCG(1, 2))
	var rr ConfidenceSequence
	for range 100 {
		rr, _ = byRho.Observe(rng.NormFloat64())
	}
	if diff := cmp.Diff(r, rr, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("Rho %v differs from OptimizeAt 100 (-default +rho):\n%s", r0, diff)
	}
	// The interval excludes Null exactly when the e-value reaches 1/α:
	// both are the same inequality on the same martingale.
	for _, shift := range []float64{0.1, 0.2, 0.3, 0.31, 0.4} {
		nm, _ := NewNormalMixture(NormalMixtureOptions{Sigma: 1, Null: -shift})
		for range 100 {
			r, _ = nm.Observe(0)
		}
		if excluded := r.Lower > -shift; excluded != (r.EValue >= 20) {
			t.Errorf("Null %v: interval [%v, %v], E %v", -shift, r.Lower, r.Upper, r.EValue)
		}
	}
	// With an estimated scale: infinite bounds and a warning until two
	// observations, then a few-units warning.
	est, _ := NewNormalMixture(NormalMixtureOptions{})
	r, _ = est.Observe(1)
	if !math.IsInf(r.Lower, -1) || len(r.Warnings) == 0 || r.EValue != 1 {
		t.Errorf("one observation: %+v", r)
	}
	r, _ = est.Observe(1)
	if r.Lower != 1 || r.Upper != 1 || len(r.Warnings) != 2 || r.Warnings[1].Code != WarnDegenerate {
		t.Errorf("two equal observations: %+v", r)
	}
}

// TestConfidenceSequenceCoverage: the probability that a sequence ever
// misses the true mean, watched after every observation, is at most α.
// 300 runs of 150 observations with a fixed seed; the bound leaves three
// standard errors over α. These sequences are conservative: a correct
// one misses far less often; one that is too narrow (a wrong variance or
// bet) misses far more.
func TestConfidenceSequenceCoverage(t *testing.T) {
	const runs, steps = 300, 150
	limit := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	makers := map[string]func() func(float64) (ConfidenceSequence, error){
		"betting": func() func(float64) (ConfidenceSequence, error) {
			b, _ := NewBettingSequence(CSOptions{Min: -1, Max: 1, Grid: 100})
			return b.Observe
		},
		"prpl-eb": func() func(float64) (ConfidenceSequence, error) {
			e, _ := NewEBSequence(CSOptions{Min: -1, Max: 1})
			return e.Observe
		},
		"normal-mixture σ=1": func() func(float64) (ConfidenceSequence, error) {
			n, _ := NewNormalMixture(NormalMixtureOptions{Sigma: 1})
			return n.Observe
		},
	}
	for name, mk := range makers {
		rng := rand.New(rand.NewPCG(2024, 1))
		const truth = 0.2 // P(+1) = 0.35, P(−1) = 0.15
		misses, width := 0, 0.0
		for range runs {
			obs := mk()
			missed := false
			var r ConfidenceSequence
			for range steps {
				d := 0.0
				switch u := rng.Float64(); {
				case u < 0.35:
					d = 1
				case u < 0.5:
					d = -1
				}
				r, _ = obs(d)
				if r.Lower > truth || r.Upper < truth {
					missed = true
				}
			}
			if missed {
				misses++
			}
			width += r.Upper - r.Lower
		}
		rate := float64(misses) / runs
		t.Logf("%-20s ever missed in %d of %d runs (%.3f), mean final width %.3f", name, misses, runs, rate, width/runs)
		if rate > limit {
			t.Errorf("%s: missed the mean in %.3f of runs, more than %.3f", name, rate, limit)
		}
	}
}

func TestConfidenceSequenceResumeIsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	values := make([]float64, 80)
	for i := range values {
		values[i] = math.Round(rng.Float64()*4)/2 - 1 // −1, −½, 0, ½, 1
	}
	opts := CSOptions{Min: -1, Max: 1, Null: 0.1, Grid: 50, Alternative: Greater}
	type stepper interface {
		Observe(float64) (ConfidenceSequence, error)
	}
	kinds := []struct {
		name   string
		fresh  func() stepper
		resume func(s stepper) stepper
	}{
		{"betting", func() stepper { b, _ := NewBettingSequence(opts); return b }, func(s stepper) stepper {
			var st BettingState
			roundTrip(t, s.(*BettingSequence).State(), &st)
			b, err := ResumeBetting(st)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"prpl-eb", func() stepper { e, _ := NewEBSequence(opts); return e }, func(s stepper) stepper {
			var st EBState
			roundTrip(t, s.(*EBSequence).State(), &st)
			e, err := ResumeEB(st)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}},
		{"normal-mixture", func() stepper { n, _ := NewNormalMixture(NormalMixtureOptions{Null: 0.1}); return n }, func(s stepper) stepper {
			var st NormalMixtureState
			roundTrip(t, s.(*NormalMixture).State(), &st)
			n, err := ResumeNormalMixture(st)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}},
	}
	for _, k := range kinds {
		whole := k.fresh()
		var want []ConfidenceSequence
		for _, v := range values {
			r, _ := whole.Observe(v)
			want = append(want, r)
		}
		cur := k.fresh()
		for i, v := range values {
			cur = k.resume(cur)
			got, _ := cur.Observe(v)
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Fatalf("%s: observation %d after resume (-whole +resumed):\n%s", k.name, i, diff)
			}
		}
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	blob, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(blob, out); err != nil {
		t.Fatal(err)
	}
}

func TestConfidenceSequenceOneSided(t *testing.T) {
	for _, alt := range []Alternative{Greater, Less} {
		b, _ := NewBettingSequence(CSOptions{Alternative: alt, Grid: 100})
		e, _ := NewEBSequence(CSOptions{Alternative: alt})
		var rb, re ConfidenceSequence
		for i := range 200 {
			v := float64(i % 2)
			rb, _ = b.Observe(v)
			re, _ = e.Observe(v)
		}
		for _, r := range []ConfidenceSequence{rb, re} {
			if (alt == Greater) != (r.Upper == 1) || (alt == Less) != (r.Lower == 0) || r.Lower > 0.5 || r.Upper < 0.5 {
				t.Errorf("%s %s: %v", alt, r.Method, r)
			}
		}
	}
}

func TestConfidenceSequenceRejectsInvalid(t *testing.T) {
	for _, opts := range []CSOptions{
		{Min: 1, Max: 0}, {Min: -1, Max: 1, Null: 2}, {Trunc: 1}, {Grid: 5}, {Level: 0.2}, {Alternative: "x"},
	} {
		if _, err := NewBettingSequence(opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
	b, _ := NewBettingSequence(CSOptions{})
	if _, err := b.Observe(1.5); !errors.Is(err, ErrDomain) {
		t.Errorf("1.5 in [0, 1]: %v", err)
	}
	if _, err := b.Observe(math.NaN()); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN: %v", err)
	}
	if r := b.Result(); r.N != 0 {
		t.Errorf("refused values counted: %+v", r)
	}
	st := b.State()
	st.LogUp = st.LogUp[:3]
	if _, err := ResumeBetting(st); err == nil {
		t.Error("resumed a state with a short grid")
	}
	if _, err := NewNormalMixture(NormalMixtureOptions{Sigma: -1}); err == nil {
		t.Error("negative Sigma accepted")
	}
}

func TestConfidenceSequenceDecide(t *testing.T) {
	base := ConfidenceSequence{Interval: Interval{Level: 0.95, Lower: -0.1, Upper: 0.04}, PValue: 0.3}
	for _, tc := range []struct {
		alt       Alternative
		p, lo, hi float64
		minEffect float64
		want      StopReason
	}{
		{Greater, 0.3, -0.1, 0.04, 0.05, Futile},
		{Greater, 0.3, -0.1, 0.06, 0.05, Continuing},
		{Greater, 0.3, -0.1, 0.04, 0, Continuing},
		{Greater, 0.05, 0.01, 0.3, 0.05, Crossed},
		{Less, 0.3, -0.04, 0.1, 0.05, Futile},
		{TwoSided, 0.3, -0.04, 0.04, 0.05, Futile},
		{TwoSided, 0.3, -0.06, 0.04, 0.05, Continuing},
	} {
		cs := base
		cs.Alternative, cs.PValue, cs.Lower, cs.Upper = tc.alt, tc.p, tc.lo, tc.hi
		// A one-sided sequence reports the range's end on its untested
		// side; the bound there, which futility reads, is Far.
		switch tc.alt {
		case Greater:
			cs.Far, cs.Upper = tc.hi, 1
		case Less:
			cs.Far, cs.Lower = tc.lo, -1
		}
		if got := cs.Decide(tc.minEffect); got != tc.want {
			t.Errorf("%s p=%v [%v, %v] min %v: %s, want %s", tc.alt, tc.p, tc.lo, tc.hi, tc.minEffect, got, tc.want)
		}
	}
}

// A one-sided sequence that sees no effect must become futile for an
// effect worth promoting: its far bound, at the same level, falls below
// Null + minEffect (above Null − minEffect for Less).
func TestOneSidedSequenceBecomesFutile(t *testing.T) {
	for _, alt := range []Alternative{Greater, Less} {
		for name, start := range map[string]func(CSOptions) (interface {
			Observe(float64) (ConfidenceSequence, error)
		}, error){
			"betting": func(o CSOptions) (interface {
				Observe(float64) (ConfidenceSequence, error)
			}, error) {
				return NewBettingSequence(o)
			},
			"eb": func(o CSOptions) (interface {
				Observe(float64) (ConfidenceSequence, error)
			}, error) {
				return NewEBSequence(o)
			},
		} {
			seq, err := start(CSOptions{Min: -1, Max: 1, Alternative: alt})
			if err != nil {
				t.Fatal(err)
			}
			var cs ConfidenceSequence
			stop := Continuing
			for i := 0; i < 2000 && stop == Continuing; i++ {
				if cs, err = seq.Observe(0); err != nil {
					t.Fatal(err)
				}
				stop = cs.Decide(0.2)
			}
			if stop != Futile {
				t.Errorf("%s %s: %s after %d observations of no effect (sequence [%v, %v], far bound %v), want futile for an effect of 0.2",
					name, alt, stop, cs.N, cs.Lower, cs.Upper, cs.Far)
			}
			switch alt {
			case Greater:
				if cs.Upper != 1 || !(cs.Far < 0.2 && cs.Far >= 0) {
					t.Errorf("%s greater: Upper %v (want the range's 1), Far %v (want in [0, 0.2))", name, cs.Upper, cs.Far)
				}
			case Less:
				if cs.Lower != -1 || !(cs.Far > -0.2 && cs.Far <= 0) {
					t.Errorf("%s less: Lower %v (want the range's −1), Far %v (want in (−0.2, 0])", name, cs.Lower, cs.Far)
				}
			}
		}
	}
}

// The far bound changes no state: a saved one-sided state is what it was
// before far bounds existed (its untested side at the range's end), so
// readers that replay saved states and compare them still agree.
func TestFarBoundKeepsTheStateFormat(t *testing.T) {
	bet, err := NewBettingSequence(CSOptions{Min: -1, Max: 1, Alternative: Greater})
	if err != nil {
		t.Fatal(err)
	}
	eb, err := NewEBSequence(CSOptions{Min: -1, Max: 1, Alternative: Less})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := bet.Observe(0); err != nil {
			t.Fatal(err)
		}
		if _, err := eb.Observe(0); err != nil {
			t.Fatal(err)
		}
	}
	if st := bet.State(); st.Upper != 1 {
		t.Errorf("greater betting state: upper %v, want 1 (the untested side)", st.Upper)
	}
	if st := eb.State(); st.Lower != 0 {
		t.Errorf("less EB state: lower %v, want 0 (the untested side)", st.Lower)
	}
	if r := bet.Result(); !(r.Far < 0.2) {
		t.Errorf("greater betting: far bound %v after 200 observations of 0", r.Far)
	}
	if r := eb.Result(); !(r.Far > -0.2) {
		t.Errorf("less EB: far bound %v after 200 observations of 0", r.Far)
	}
}

// A one-sided sequence gives up wrongly (Futile while the effect is at
// least minEffect) in at most α of experiments, read after every
// observation; with no effect it gives up in nearly all of them. Paired
// differences in {−1, 0, +1} with mean exactly minEffect, the hardest
// case; fixed seeds.
func TestOneSidedFutilityErrorRate(t *testing.T) {
	const runs, obs, minEffect = 400, 300, 0.25
	sim := func(name string, pUp, pDown float64, start func() (interface {
		Observe(float64) (ConfidenceSequence, error)
	}, error)) float64 {
		rng := rand.New(rand.NewPCG(7, uint64(len(name))))
		futile := 0
		for i := 0; i < runs; i++ {
			seq, err := start()
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < obs; j++ {
				u, d := rng.Float64(), 0.0
				switch {
				case u < pUp:
					d = 1
				case u < pUp+pDown:
					d = -1
				}
				cs, err := seq.Observe(d)
				if err != nil {
					t.Fatal(err)
				}
				if stop := cs.Decide(minEffect); stop == Futile {
					futile++
					break
				} else if stop == Crossed {
					break
				}
			}
		}
		return float64(futile) / runs
	}
	opts := CSOptions{Min: -1, Max: 1, Alternative: Greater, Grid: 200}
	starts := map[string]func() (interface {
		Observe(float64) (ConfidenceSequence, error)
	}, error){
		"betting": func() (interface {
			Observe(float64) (ConfidenceSequence, error)
		}, error) {
			return NewBettingSequence(opts)
		},
		"eb": func() (interface {
			Observe(float64) (ConfidenceSequence, error)
		}, error) {
			return NewEBSequence(opts)
		},
	}
	limit := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	for name, start := range starts {
		// Effect exactly minEffect: P(+1) − P(−1) = 0.25.
		if rate := sim(name+"-edge", 0.35, 0.10, start); rate > limit {
			t.Errorf("%s: futile in %.3f of experiments with an effect of %v, want at most α = 0.05 (+ 3 SE)", name, rate, minEffect)
		}
		// No effect: futility should nearly always be reached.
		if rate := sim(name+"-null", 0.2, 0.2, start); rate < 0.9 {
			t.Errorf("%s: futile in only %.3f of experiments with no effect within %d observations", name, rate, obs)
		}
	}
}
