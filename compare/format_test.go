package compare

import "testing"

// Amounts below a hundredth of a cent keep two significant digits instead
// of reading as $0.0000.
func TestDollars(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0000", 0.25: "0.2500", 0.00001: "0.00001", 1.5e-6: "0.0000015", 0.00012: "0.0001", -0.00002: "-0.00002"} {
		if got := dollars(v); got != want {
			t.Errorf("dollars(%v) = %q, want %q", v, got, want)
		}
	}
}
