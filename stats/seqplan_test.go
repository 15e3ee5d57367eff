package stats

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFixedRejects checks the fixed design's rule against McNemar's exact
// test and the binomial tail of binomial.go, which share no code with it.
func TestFixedRejects(t *testing.T) {
	for _, alt := range []Alternative{TwoSided, Greater, Less} {
		o, _ := SignTestOptions{Alternative: alt}.resolve()
		reject := fixedRejects(o, 80)
		for d := 0; d <= 80; d++ {
			for w := 0; w <= d; w++ {
				l := d - w
				var want bool
				switch alt {
				case TwoSided:
					want = McNemarExact(w, l) <= 0.05
				case Greater:
					want = 1-BinomialCDF(w-1, d, 0.5) <= 0.05
				case Less:
					want = BinomialCDF(w, d, 0.5) <= 0.05
				}
				if got := reject(w, l); got != want {
					t.Fatalf("%s w=%d l=%d: reject %v, want %v", alt, w, l, got, want)
				}
			}
		}
	}
}

func TestPlanSignTest(t *testing.T) {
	base := []float64{0.2, 0.5, 0.8, 0.5}
	opts := SignTestOptions{Alternative: Greater, MaxPairs: 100, Futility: 0.7}
	null, err := PlanSignTest(opts, base, base, PlanOptions{Campaigns: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if null.Crossed > 0.05+3*math.Sqrt(0.05*0.95/500) || math.Abs(null.Crossed+null.Futile+null.Capped-1) > 1e-12 ||
		null.MeanPairs > 100 || null.MaxPairs != 100 {
		t.Errorf("null plan: %+v", null)
	}
	again, _ := PlanSignTest(opts, base, base, PlanOptions{Campaigns: 500, Seed: 3})
	if diff := cmp.Diff(null, again); diff != "" {
		t.Errorf("same seed, different plan (-first +second):\n%s", diff)
	}
	better := []float64{0.5, 0.8, 1, 0.8}
	alt, _ := PlanSignTest(opts, base, better, PlanOptions{Campaigns: 500, Seed: 3})
	if alt.Crossed < 0.8 || alt.FixedPairs == 0 || alt.FixedPower < alt.Crossed || alt.MeanPairs >= float64(alt.FixedPairs) {
		t.Errorf("alternative plan: %+v", alt)
	}
	t.Logf("null %+v\nalternative %+v", null, alt)
	limit := 0.05 + 3*math.Sqrt(0.05*0.95/500)
	// A worse candidate lies in the one-sided null: it is rejected even
	// less often than a fair one.
	worse, _ := PlanSignTest(opts, better, base, PlanOptions{Campaigns: 500, Seed: 4})
	if worse.Crossed > limit {
		t.Errorf("a worse candidate crossed in %.3f of campaigns", worse.Crossed)
	}
	// Every case won with probability exactly p₁ = 0.7 (0.5 → 0.7): the
	// edge of the futility hypothesis, where giving up is an error.
	edge, _ := PlanSignTest(SignTestOptions{Alternative: Greater, MaxPairs: 300, Futility: 0.7},
		[]float64{0.5, 0.5}, []float64{0.7, 0.7}, PlanOptions{Campaigns: 500, Seed: 5})
	if edge.Futile > limit || alt.Futile > limit {
		t.Errorf("gave up on an effect of the size sought in %.3f (edge) and %.3f (larger) of campaigns", edge.Futile, alt.Futile)
	}
	t.Logf("worse %+v\nedge %+v", worse, edge)
	for name, call := range map[string]func() error{
		"no cap":      func() error { _, err := PlanSignTest(SignTestOptions{}, base, base, PlanOptions{}); return err },
		"lengths":     func() error { _, err := PlanSignTest(opts, base, base[:2], PlanOptions{}); return err },
		"probability": func() error { _, err := PlanSignTest(opts, base, []float64{0, 0, 0, 1.5}, PlanOptions{}); return err },
		"campaigns":   func() error { _, err := PlanSignTest(opts, base, base, PlanOptions{Campaigns: -1}); return err },
	} {
		var e *Error
		if err := call(); !errors.As(err, &e) {
			t.Errorf("%s: %v, want a *stats.Error", name, err)
		}
	}
}
