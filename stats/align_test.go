package stats

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAlign(t *testing.T) {
	before := map[string]float64{"c3": 0, "c1": 1, "c2": 1, "gone": 1}
	after := map[string]float64{"c2": 0, "c1": 1, "c3": 1, "new": 0, "also-new": 1}
	ids, b, a, unmatched := Align(before, after)
	if diff := cmp.Diff([]string{"c1", "c2", "c3"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 1, 0}, b); diff != "" {
		t.Errorf("before (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 0, 1}, a); diff != "" {
		t.Errorf("after (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"also-new", "gone", "new"}, unmatched); diff != "" {
		t.Errorf("unmatched (-want +got):\n%s", diff)
	}
	if bb, cc := Discordant(b, a); bb != 1 || cc != 1 {
		t.Errorf("Discordant = %d, %d; want 1, 1", bb, cc)
	}
	ids, b, a, unmatched = Align(nil, nil)
	if len(ids)+len(b)+len(a)+len(unmatched) != 0 {
		t.Errorf("Align(nil, nil) = %v %v %v %v", ids, b, a, unmatched)
	}
}
