package stats

import "math/bits"

// The bootstrap's random stream, frozen here so that its output can be
// golden-tested and does not change with the Go release or the platform.
//
// Resample r of a call with seed s draws from its own xoshiro256** generator
// (Blackman & Vigna 2021, "Scrambled Linear Pseudorandom Number
// Generators"), whose four state words are the next four outputs of a
// splitmix64 generator (Steele, Lea & Flood 2014) started at
// mix(s) ⊕ mix(r ⊕ streamSalt). Every resample therefore depends only on
// (s, r) and the data, never on which goroutine computes it. Indices are
// drawn with Lemire's unbiased multiply-shift method ("Fast Random Integer
// Generation in an Interval", ACM TOMACS 2019): each 64-bit output gives
// two 32-bit words, low half first; a word w maps to ⌊w·n / 2³²⌋ and is
// rejected (replaced by the high half of a fresh output) when
// (w·n mod 2³²) < (2³² − n) mod n.

// streamSalt separates the resample numbers from the seed before mixing.
const streamSalt = 0x6a09e667f3bcc909

// xoshiro is the state of a xoshiro256** generator.
type xoshiro struct{ s0, s1, s2, s3 uint64 }

// mix64 is the splitmix64 output function (the finalizer of MurmurHash3
// with Stafford's "Mix13" constants).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newStream returns the generator of resample r under seed.
func newStream(seed, r uint64) xoshiro {
	z := mix64(seed) ^ mix64(r^streamSalt)
	const gamma = 0x9e3779b97f4a7c15
	z += gamma
	s0 := mix64(z)
	z += gamma
	s1 := mix64(z)
	z += gamma
	s2 := mix64(z)
	z += gamma
	s3 := mix64(z)
	return xoshiro{s0, s1, s2, s3}
}

// next advances the generator and returns its output. It takes and returns
// the state by value so that the state stays in registers in hot loops.
func (g xoshiro) next() (xoshiro, uint64) {
	out := bits.RotateLeft64(g.s1*5, 7) * 9
	t := g.s1 << 17
	g.s2 ^= g.s0
	g.s3 ^= g.s1
	g.s1 ^= g.s2
	g.s0 ^= g.s3
	g.s2 ^= t
	g.s3 = bits.RotateLeft64(g.s3, 45)
	return g, out
}

// index64 draws an index in [0, n) for n ≥ 2³² with Lemire's method on
// full 64-bit outputs.
func index64(g xoshiro, n uint64) (xoshiro, uint64) {
	var x uint64
	g, x = g.next()
	hi, lo := bits.Mul64(x, n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			g, x = g.next()
			hi, lo = bits.Mul64(x, n)
		}
	}
	return g, hi
}

// lemire32 finishes Lemire's method for the product m = w·n of a 32-bit
// word w: while the low half of m falls in the rejection zone
// [0, thresh), thresh = (2³² − n) mod n, it redraws w as the high half of
// a fresh output. The index is the high half of the returned product,
// m>>32, in [0, n). n must lie in [1, 2³²).
func lemire32(g xoshiro, m, n uint64, thresh uint32) (xoshiro, uint64) {
	for uint32(m) < thresh {
		var x uint64
		g, x = g.next()
		m = (x >> 32) * n
	}
	return g, m
}
