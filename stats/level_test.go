package stats

import (
	"errors"
	"math"
	"testing"
)

func TestCheckLevel(t *testing.T) {
	const rangeText = "want 0 (the default, 0.95) or a value in [0.5, 0.999]"
	for _, tc := range []struct {
		level   float64
		want    float64
		wantErr string // the error's Message; empty for none
	}{
		{0, DefaultLevel, ""},
		{0.5, 0.5, ""},
		{0.9, 0.9, ""},
		{0.95, 0.95, ""},
		{0.999, 0.999, ""},
		{0.4999, 0, "confidence level out of range: got 0.4999, " + rangeText},
		{0.9991, 0, "confidence level out of range: got 0.9991, " + rangeText},
		{1, 0, "confidence level out of range: got 1, " + rangeText},
		{95, 0, "confidence level out of range: got 95, " + rangeText},
		{-0.95, 0, "confidence level out of range: got -0.95, " + rangeText},
		{math.NaN(), 0, "confidence level out of range: got NaN, " + rangeText},
		{math.Inf(1), 0, "confidence level out of range: got +Inf, " + rangeText},
	} {
		got, err := CheckLevel(tc.level)
		if tc.wantErr == "" {
			if err != nil || got != tc.want {
				t.Errorf("CheckLevel(%v) = %v, %v; want %v, nil", tc.level, got, err, tc.want)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrLevel) {
			t.Errorf("CheckLevel(%v) error %v is not an *Error matching ErrLevel", tc.level, err)
			continue
		}
		if e.Message() != tc.wantErr || err.Error() != "stats: "+tc.wantErr {
			t.Errorf("CheckLevel(%v) message %q, want %q", tc.level, e.Message(), tc.wantErr)
		}
	}
}

// Every function of the package that takes a level applies CheckLevel: the
// same bad level gives the same error everywhere.
func TestEveryLevelUsesCheckLevel(t *testing.T) {
	const bad = 1.5
	_, want := CheckLevel(bad)
	_, mean := Mean([]float64{0, 1, 1}, nil, Config{Level: bad})
	_, wilson := WilsonInterval(1, 3, bad)
	_, cp := ClopperPearsonInterval(1, 3, bad)
	for name, err := range map[string]error{"Mean": mean, "WilsonInterval": wilson, "ClopperPearsonInterval": cp} {
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%s: error %v, want %v", name, err, want)
		}
	}
	if !math.IsNaN(HoeffdingHalfWidth(10, bad)) || HoeffdingSampleSize(0.1, bad) != 0 {
		t.Error("the Hoeffding helpers accept a bad level")
	}
}
