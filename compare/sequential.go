package compare

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// SamplePassed reports whether a run's verdict is pass, the verdict the
// pass rate counts (any other run did not pass).
func SamplePassed(s record.Sample) bool {
	return s.Verdict() == record.VerdictPass
}

// SequentialOptions configures SequentialSuites: the sign test's level
// (1 − α, default 0.95) and side (default two-sided; "greater": B is
// better, "less": B is worse).
type SequentialOptions struct {
	Level       float64
	Alternative stats.Alternative
}

// SequentialComparison is the anytime-valid sign test of suite B against
// suite A: the e-process over the discordant pairs (a case and
// repetition present in both suites where exactly one side passed), fed
// in round order — repetition 1 of every case (sorted by id), then
// repetition 2, … — which is fixed before any outcome is seen.
type SequentialComparison struct {
	Method      stats.Method      `json:"method"`
	Alternative stats.Alternative `json:"alternative"`
	Level       float64           `json:"level"`
	// Available are the case-repetition pairs present in both suites;
	// Pairs those the test used, up to its decision (it stops once it
	// crosses); Wins are the discordant pairs B passed, Losses those A
	// passed, among those used.
	Available int `json:"available"`
	Pairs     int `json:"pairs"`
	Wins      int `json:"wins"`
	Losses    int `json:"losses"`
	Unpaired  int `json:"unpaired"` // runs of one suite with no run of the same case and repetition in the other
	// EValue is the e-process after the last pair, MaxEValue its running
	// maximum over the pairs in round order, PValue = min(1, 1/MaxEValue)
	// the anytime-valid p-value.
	EValue    float64 `json:"eValue"`
	MaxEValue float64 `json:"maxEValue"`
	PValue    float64 `json:"pValue"`
	// WinRate is the confidence sequence of P(B wins | discordant).
	WinRate stats.Interval `json:"winRate"`
	// Crossed: the e-process reached 1/α: the null "B changes no case's
	// pass probability" is rejected at level α, in Direction.
	Crossed   bool              `json:"crossed"`
	Direction stats.Alternative `json:"direction,omitempty"`
}

// SequentialSuites runs the sequential sign test of stats.SignTest on two
// existing suite directories, a the baseline and b the change. It reads
// the same records Suites does and pairs runs by case id and repetition.
func SequentialSuites(ctx context.Context, a, b string, opts SequentialOptions) (*SequentialComparison, error) {
	sa, err := readSamples(ctx, a, "A")
	if err != nil {
		return nil, err
	}
	sb, err := readSamples(ctx, b, "B")
	if err != nil {
		return nil, err
	}
	test, err := stats.NewSignTest(stats.SignTestOptions{Level: opts.Level, Alternative: opts.Alternative})
	if err != nil {
		return nil, fmt.Errorf("compare: sequential: %w", err)
	}
	type key struct {
		rep int
		id  string
	}
	byKey := map[key]record.Sample{}
	for _, s := range sa {
		byKey[key{s.Repetition, s.CaseID}] = s
	}
	keys := []key{}
	bs := map[key]record.Sample{}
	for _, s := range sb {
		k := key{s.Repetition, s.CaseID}
		bs[k] = s
		if _, ok := byKey[k]; ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.rep, y.rep), strings.Compare(x.id, y.id)) })
	res := test.Result()
	for _, k := range keys {
		res = test.Observe(SamplePassed(byKey[k]), SamplePassed(bs[k]))
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no case and repetition is in both suites", ErrEmpty)
	}
	return &SequentialComparison{
		Method: res.Method, Alternative: res.Alternative, Level: res.Level, Available: len(keys), Pairs: res.Pairs, Wins: res.Wins, Losses: res.Losses,
		Unpaired: len(sa) + len(sb) - 2*len(keys), EValue: res.EValue, MaxEValue: res.MaxEValue, PValue: res.PValue,
		WinRate: res.WinRate, Crossed: res.Stop == stats.Crossed, Direction: res.Direction,
	}, nil
}

// readSamples reads the runs of a suite directory as Suites does.
func readSamples(ctx context.Context, dir, name string) ([]record.Sample, error) {
	sd := newSide(name)
	var out []record.Sample
	sd.onAdd = func(s *record.Sample) { out = append(out, *s) }
	if err := readSuiteDir(ctx, dir, sd); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteText prints the sequential comparison.
func (c *SequentialComparison) WriteText(w io.Writer) error {
	alpha := 1 - c.Level
	var b strings.Builder
	fmt.Fprintf(&b, "sequential sign test (%s, %s, α = %.3g): %d of %d pairs of case and repetition used, in round order; %d discordant: B won %d, A won %d\n",
		c.Alternative, c.Method, alpha, c.Pairs, c.Available, c.Wins+c.Losses, c.Wins, c.Losses)
	if c.Unpaired > 0 {
		fmt.Fprintf(&b, "  %d runs have no run of the same case and repetition on the other side and are left out\n", c.Unpaired)
	}
	fmt.Fprintf(&b, "  e-value %.4g (running max %.4g, threshold 1/α = %.4g), anytime p = %.4g\n", c.EValue, c.MaxEValue, 1/alpha, c.PValue)
	fmt.Fprintf(&b, "  win rate of B among discordant pairs %.3g, %g%% confidence sequence [%.3g, %.3g]\n",
		c.WinRate.Estimate, 100*c.Level, c.WinRate.Lower, c.WinRate.Upper)
	switch {
	case c.Crossed && c.Direction == stats.Greater:
		fmt.Fprintf(&b, "  crossed after %d of %d pairs (saved %d): B is better than A (the null \"B changes no case's pass probability\" is rejected at α = %.3g)\n", c.Pairs, c.Available, c.Available-c.Pairs, alpha)
	case c.Crossed:
		fmt.Fprintf(&b, "  crossed after %d of %d pairs (saved %d): B is worse than A (the null \"B changes no case's pass probability\" is rejected at α = %.3g)\n", c.Pairs, c.Available, c.Available-c.Pairs, alpha)
	default:
		b.WriteString("  not crossed: no decision yet; more runs of both may be added and tested again, the guarantee holds\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
