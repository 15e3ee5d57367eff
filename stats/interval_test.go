package stats

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestMeanErrors(t *testing.T) {
	ok := []float64{0, 1, 1, 0, 1}
	tests := []struct {
		name     string
		values   []float64
		clusters []string
		cfg      Config
		want     []error  // every one must match with errors.Is
		mention  []string // substrings the message must contain
	}{
		{name: "NaN", values: []float64{1, 0, math.NaN(), 1}, want: []error{ErrNonFinite}, mention: []string{"values[2]", "NaN"}},
		{name: "Inf counted", values: []float64{math.Inf(1), 0, math.Inf(-1)}, want: []error{ErrNonFinite}, mention: []string{"values[0]", "2 non-finite"}},
		{name: "cluster labels short", values: ok, clusters: []string{"a", "b"}, want: []error{ErrLength}, mention: []string{"5 values", "2 cluster labels"}},
		{name: "no values", values: nil, want: []error{ErrTooFewUnits}, mention: []string{"0 values", "at least 2"}},
		{name: "one value", values: []float64{1}, want: []error{ErrTooFewUnits}},
		{name: "one cluster", values: ok, clusters: []string{"a", "a", "a", "a", "a"}, want: []error{ErrTooFewUnits}, mention: []string{"1 clusters"}},
		{name: "below MinUnits", values: ok, cfg: Config{MinUnits: 6}, want: []error{ErrTooFewUnits}, mention: []string{"5 values", "at least 6"}},
		{name: "level too low", values: ok, cfg: Config{Level: 0.3}, want: []error{ErrLevel}, mention: []string{"0.3"}},
		{name: "level 1", values: ok, cfg: Config{Level: 1}, want: []error{ErrLevel}},
		{name: "level NaN", values: ok, cfg: Config{Level: math.NaN()}, want: []error{ErrLevel}},
		{name: "level as percent", values: ok, cfg: Config{Level: 95}, want: []error{ErrLevel}},
		{name: "unknown method", values: ok, cfg: Config{Method: "bca"}, want: []error{ErrMethod}, mention: []string{`"bca"`}},
		{name: "negative resamples", values: ok, cfg: Config{Resamples: -1}, want: []error{ErrConfig}, mention: []string{"Resamples"}},
		{name: "too many resamples", values: ok, cfg: Config{Resamples: MaxResamples + 1}, want: []error{ErrConfig}},
		{name: "MinUnits 1", values: ok, cfg: Config{MinUnits: 1}, want: []error{ErrConfig}, mention: []string{"MinUnits"}},
		{name: "every config problem at once", values: ok, cfg: Config{Method: "x", Level: 2, Resamples: -5, MinUnits: -1},
			want: []error{ErrMethod, ErrLevel, ErrConfig}, mention: []string{"Resamples", "MinUnits"}},
		{name: "wilson with clusters", values: ok, clusters: []string{"a", "a", "b", "b", "c"}, cfg: Config{Method: Wilson},
			want: []error{ErrMethod}, mention: []string{"clusters", `"t"`, `"percentile-bootstrap"`}},
		{name: "wilson on fractions", values: []float64{1, 0.5, 0}, cfg: Config{Method: Wilson},
			want: []error{ErrDomain}, mention: []string{"values[1]", `"hoeffding"`}},
		{name: "hoeffding above 1", values: []float64{1, 1.5, 0}, cfg: Config{Method: Hoeffding},
			want: []error{ErrDomain}, mention: []string{"values[1]", "[0, 1]"}},
		{name: "hoeffding below 0", values: []float64{-0.1, 1, 0}, cfg: Config{Method: Hoeffding}, want: []error{ErrDomain}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv, err := Mean(tt.values, tt.clusters, tt.cfg)
			checkErr(t, err, tt.want, tt.mention)
			if diff := cmp.Diff(Interval{}, iv); err != nil && diff != "" {
				t.Errorf("interval returned with an error:\n%s", diff)
			}
		})
	}
}

func TestPairedErrors(t *testing.T) {
	a := []float64{1, 0, 1, 1}
	tests := []struct {
		name          string
		before, after []float64
		clusters      []string
		cfg           Config
		want          []error
		mention       []string
	}{
		{name: "lengths", before: a, after: a[:3], want: []error{ErrLength}, mention: []string{"4 before", "3 after", "case id"}},
		{name: "NaN after", before: a, after: []float64{1, math.NaN(), 0, 0}, want: []error{ErrNonFinite}, mention: []string{"after[1]"}},
		{name: "Inf before", before: []float64{math.Inf(1), 0, 0, 0}, after: a, want: []error{ErrNonFinite}, mention: []string{"before[0]"}},
		{name: "cluster labels", before: a, after: a, clusters: []string{"x"}, want: []error{ErrLength}},
		{name: "too few pairs", before: a[:1], after: a[:1], want: []error{ErrTooFewUnits}},
		{name: "wilson", before: a, after: a, cfg: Config{Method: Wilson}, want: []error{ErrMethod}, mention: []string{"McNemarExact"}},
		{name: "hoeffding out of range", before: []float64{2, 0, 0, 0}, after: a, cfg: Config{Method: Hoeffding},
			want: []error{ErrDomain}, mention: []string{"before[0]"}},
		{name: "bad level", before: a, after: a, cfg: Config{Level: 0.9999}, want: []error{ErrLevel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Paired(tt.before, tt.after, tt.clusters, tt.cfg)
			checkErr(t, err, tt.want, tt.mention)
		})
	}
}

func checkErr(t *testing.T, err error, want []error, mention []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("error %q does not match %v", err, w)
		}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "stats: ") {
		t.Errorf("error %q lacks the stats: prefix", msg)
	}
	for _, m := range mention {
		if !strings.Contains(msg, m) {
			t.Errorf("error %q does not mention %q", msg, m)
		}
	}
}

// warningKinds names the kind of each warning.
func warningKinds(ws []Warning) []string {
	names := map[Code]string{
		WarnFewClusters: "few clusters", WarnFewUnits: "few units",
		WarnDegenerate: "degenerate", WarnFewResamples: "few resamples",
	}
	var out []string
	for _, w := range ws {
		name, ok := names[w.Code]
		if !ok {
			name = "unknown: " + w.Error()
		}
		out = append(out, name)
	}
	return out
}

func TestMeanWarnings(t *testing.T) {
	forty := bernoulli(40, 0.5, 1)
	tests := []struct {
		name     string
		values   []float64
		clusters []string
		cfg      Config
		want     []string
	}{
		{name: "normal on 10 values", values: forty[:10], cfg: Config{Method: Normal}, want: []string{"few units"}},
		{name: "t on 10 values", values: forty[:10], cfg: Config{Method: StudentT}},
		{name: "wilson on 10 values", values: forty[:10], cfg: Config{Method: Wilson}},
		{name: "hoeffding on 10 values", values: forty[:10], cfg: Config{Method: Hoeffding}},
		{name: "bootstrap on 10 values", values: forty[:10], cfg: Config{Method: PercentileBootstrap}, want: []string{"few units"}},
		{name: "normal on 40 values", values: forty, cfg: Config{Method: Normal}},
		{name: "normal, 8 clusters", values: forty, clusters: labels(40, 5), cfg: Config{Method: Normal}, want: []string{"few clusters"}},
		{name: "t, 8 clusters", values: forty, clusters: labels(40, 5), cfg: Config{Method: StudentT}, want: []string{"few clusters"}},
		{name: "bootstrap, 8 clusters", values: forty, clusters: labels(40, 5), cfg: Config{Method: PercentileBootstrap}, want: []string{"few clusters"}},
		{name: "hoeffding, 8 clusters", values: forty, clusters: labels(40, 5), cfg: Config{Method: Hoeffding}},
		{name: "t, 20 clusters", values: forty, clusters: labels(40, 2), cfg: Config{Method: StudentT}},
		{name: "few resamples", values: forty, cfg: Config{Method: PercentileBootstrap, Resamples: 500}, want: []string{"few resamples"}},
		{name: "all equal, t", values: repeat(1, 40), cfg: Config{Method: StudentT}, want: []string{"degenerate"}},
		{name: "all equal, bootstrap", values: repeat(0, 40), cfg: Config{Method: PercentileBootstrap}, want: []string{"degenerate"}},
		{name: "all equal, wilson", values: repeat(1, 40), cfg: Config{Method: Wilson}},
		{name: "equal cluster means", values: []float64{0, 1, 1, 0, 0, 1, 1, 0}, clusters: labels(8, 2), cfg: Config{Method: StudentT},
			want: []string{"few clusters", "degenerate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv, err := Mean(tt.values, tt.clusters, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, warningKinds(iv.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			for _, w := range iv.Warnings {
				if !strings.HasPrefix(w.Error(), "stats: ") {
					t.Errorf("warning %q lacks the stats: prefix", w)
				}
			}
		})
	}
}

func TestMeanDefaults(t *testing.T) {
	values := bernoulli(40, 0.5, 2)
	iv, err := Mean(values, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	se, _ := StdErr(values, nil)
	want := Interval{
		Method: StudentT, Level: 0.95, Estimate: mean(values),
		Lower: mean(values) - StudentTQuantile(0.975, 39)*se, Upper: mean(values) + StudentTQuantile(0.975, 39)*se,
		StdErr: se, N: 40, Units: 40,
	}
	if diff := cmp.Diff(want, iv); diff != "" {
		t.Errorf("Mean with the zero Config (-want +got):\n%s", diff)
	}
	boot, err := Mean(values, nil, Config{Method: PercentileBootstrap})
	if err != nil {
		t.Fatal(err)
	}
	if boot.Resamples != DefaultResamples || boot.Level != DefaultLevel {
		t.Errorf("bootstrap defaults: resamples %d, level %v", boot.Resamples, boot.Level)
	}
}

func TestMeanClusters(t *testing.T) {
	values := bernoulli(60, 0.4, 3)
	sizes := []string{}
	for i := range 60 {
		sizes = append(sizes, string(rune('a'+i%15))) // 15 clusters of 4, interleaved
	}

	t.Run("t uses C-1 degrees of freedom", func(t *testing.T) {
		iv, err := Mean(values, sizes, Config{Method: StudentT})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Units != 15 || iv.N != 60 {
			t.Errorf("units %d, n %d; want 15, 60", iv.Units, iv.N)
		}
		near(t, "upper", iv.Upper, iv.Estimate+StudentTQuantile(0.975, 14)*iv.StdErr, 1e-15)
	})

	t.Run("singleton labels are independent values", func(t *testing.T) {
		empty := make([]string, 60)
		distinct := make([]string, 60)
		for i := range distinct {
			distinct[i] = string(rune(0x100 + i))
		}
		plain, _ := Mean(values, nil, Config{Method: Wilson})
		for _, l := range [][]string{empty, distinct} {
			for _, m := range []Method{Wilson, Normal, StudentT, Hoeffding, PercentileBootstrap} {
				a, err := Mean(values, l, Config{Method: m})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := Mean(values, nil, Config{Method: m})
				if diff := cmp.Diff(b, a, cmp.Comparer(sameError)); diff != "" {
					t.Errorf("%s: singleton clusters differ from none (-none +singletons):\n%s", m, diff)
				}
			}
		}
		if plain.Units != 60 {
			t.Errorf("units %d", plain.Units)
		}
	})

	t.Run("hoeffding uses cluster means as units", func(t *testing.T) {
		iv, err := Mean(repeat(0.5, 60), sizes, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "half-width", (iv.Upper-iv.Lower)/2, HoeffdingHalfWidth(15, 0.95), 1e-15)
		// Unequal sizes: Σ w_c² with w = n_c/n.
		// Ten clusters of 5 and 50 values on their own.
		uneven := make([]string, 100)
		for i := range 50 {
			uneven[i] = labels(50, 5)[i]
		}
		iv, err = Mean(repeat(0.5, 100), uneven, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Units != 60 {
			t.Errorf("units %d, want 60", iv.Units)
		}
		sumW2 := 10*0.05*0.05 + 50*0.01*0.01
		near(t, "uneven half-width", (iv.Upper-iv.Lower)/2, math.Sqrt(math.Log(40)*sumW2/2), 1e-15)
	})

	t.Run("hoeffding clips to [0, 1]", func(t *testing.T) {
		iv, err := Mean([]float64{1, 1, 1, 0.9}, nil, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Upper != 1 || iv.Lower <= 0 {
			t.Errorf("interval [%v, %v]", iv.Lower, iv.Upper)
		}
	})

	t.Run("bootstrap resamples clusters", func(t *testing.T) {
		// Two clusters that are constant inside: every resample mean is
		// 0, 0.5 or 1, never the values a resample of single values gives.
		v := []float64{0, 0, 0, 0, 1, 1, 1, 1}
		iv, err := Mean(v, []string{"x", "x", "x", "x", "y", "y", "y", "y"}, Config{Method: PercentileBootstrap, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lower != 0 || iv.Upper != 1 {
			t.Errorf("cluster bootstrap interval [%v, %v], want [0, 1]", iv.Lower, iv.Upper)
		}
	})
}

func TestPaired(t *testing.T) {
	before := bernoulli(80, 0.5, 7)
	after := slices.Clone(before)
	for i := range after {
		if i%5 == 0 {
			after[i] = 1
		}
	}
	diff := make([]float64, len(after))
	for i := range diff {
		diff[i] = after[i] - before[i]
	}
	clusters := labels(80, 4)
	for _, m := range []Method{Normal, StudentT, PercentileBootstrap} {
		for _, c := range [][]string{nil, clusters} {
			p, err := Paired(before, after, c, Config{Method: m, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := Mean(diff, c, Config{Method: m, Seed: 3})
			if diff := cmp.Diff(d, p, cmp.Comparer(sameError)); diff != "" {
				t.Errorf("%s, clusters %v: Paired differs from Mean of the differences (-mean +paired):\n%s", m, c != nil, diff)
			}
		}
	}

	t.Run("hoeffding range 2", func(t *testing.T) {
		b := repeat(0, 100)
		a := bernoulli(100, 0.5, 9)
		iv, err := Paired(b, a, nil, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "half-width", (iv.Upper-iv.Lower)/2, 2*HoeffdingHalfWidth(100, 0.95), 1e-12)
		iv, err = Paired(repeat(0, 10), repeat(1, 10), nil, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Upper != 1 || iv.Estimate != 1 {
			t.Errorf("clipping: %v", iv)
		}
		iv, err = Paired(repeat(1, 10), repeat(0, 10), nil, Config{Method: Hoeffding})
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lower != -1 || iv.Estimate != -1 {
			t.Errorf("clipping: %v", iv)
		}
	})
}

func TestWilsonIntervalErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		k, n  int
		level float64
		want  error
	}{
		{"no trials", 0, 0, 0.95, ErrArgument},
		{"negative", -1, 5, 0.95, ErrArgument},
		{"more successes than trials", 6, 5, 0.95, ErrArgument},
		{"level", 1, 5, 0.4, ErrLevel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := WilsonInterval(tt.k, tt.n, tt.level)
			checkErr(t, err, []error{tt.want}, nil)
		})
	}
	iv, err := WilsonInterval(3, 10, 0) // level 0 means 0.95
	if err != nil || iv.Level != 0.95 {
		t.Errorf("WilsonInterval(3, 10, 0) = %v, %v", iv, err)
	}
}

func TestStdErr(t *testing.T) {
	if se, err := StdErr(nil, nil); se != 0 || err != nil {
		t.Errorf("StdErr(nil) = %v, %v", se, err)
	}
	if se, err := StdErr([]float64{3}, nil); se != 0 || err != nil {
		t.Errorf("StdErr of one value = %v, %v", se, err)
	}
	if _, err := StdErr([]float64{math.NaN(), 1}, nil); !errors.Is(err, ErrNonFinite) {
		t.Errorf("StdErr(NaN) error %v", err)
	}
	if _, err := StdErr([]float64{1, 2}, []string{"a"}); !errors.Is(err, ErrLength) {
		t.Errorf("StdErr with short labels: error %v", err)
	}
}

func TestIntervalString(t *testing.T) {
	iv, _ := Mean([]float64{1, 0, 1, 1}, nil, Config{})
	if got, want := iv.String(), "0.75 [-0.04561, 1.546] (t, 95%, n=4, units=4)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	iv, _ = Mean([]float64{1, 0, 1, 1}, nil, Config{Method: PercentileBootstrap, Resamples: 100})
	if got := iv.String(); !strings.Contains(got, "resamples=100") || !strings.HasSuffix(got, "with 2 warning(s)") {
		t.Errorf("String() = %q", got)
	}
}
