package stats

import "testing"

// The cost of one update of each sequential method; the betting sequence
// is O(Grid) per observation, the others O(1) (the sign test's bisections
// for its win-rate sequence aside).
func BenchmarkSignTestObserve(b *testing.B) {
	st, _ := NewSignTest(SignTestOptions{Futility: 0.7})
	for i := range b.N {
		if st.Result().Stop != Continuing {
			st, _ = NewSignTest(SignTestOptions{Futility: 0.7})
		}
		st.Observe(i%3 == 0, i%2 == 0)
	}
}

func BenchmarkBettingObserve(b *testing.B) {
	bs, _ := NewBettingSequence(CSOptions{Min: -1, Max: 1})
	for i := range b.N {
		_, _ = bs.Observe(float64(i%3 - 1))
	}
}

func BenchmarkEBObserve(b *testing.B) {
	eb, _ := NewEBSequence(CSOptions{Min: -1, Max: 1})
	for i := range b.N {
		_, _ = eb.Observe(float64(i%3 - 1))
	}
}
