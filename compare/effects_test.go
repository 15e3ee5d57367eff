package compare

import (
	"testing"

	"github.com/luxeval/lux/stats"
)

func TestEveryStatsWarningHasACode(t *testing.T) {
	seen := map[string]stats.Code{}
	for _, c := range stats.WarningCodes() {
		code, ok := statsWarnings[c]
		if !ok || code == "" || code == WarnStats {
			t.Errorf("stats warning %q has no code of its own in statsWarnings", c)
			continue
		}
		if other, dup := seen[code]; dup {
			t.Errorf("stats warnings %q and %q both map to %q", other, c, code)
		}
		seen[code] = c
	}
	if len(statsWarnings) != len(stats.WarningCodes()) {
		t.Errorf("statsWarnings maps %d codes, stats has %d", len(statsWarnings), len(stats.WarningCodes()))
	}
}

func TestWarningOfKeepsTheMessage(t *testing.T) {
	e := &Effect{Unit: "tokens", Interval: &Interval{Method: stats.StudentT, Units: 3}}
	w := e.warningOf(stats.Warning{Code: stats.WarnFewClusters, Detail: "3 clusters (fewer than 20)"})
	if want := (Warning{Code: WarnFewClusters, Message: "few clusters: 3 clusters (fewer than 20)"}); w != want {
		t.Errorf("got %+v, want %+v", w, want)
	}
	if w := e.warningOf(stats.Warning{Code: "from-the-future", Detail: "x"}); w.Code != WarnStats {
		t.Errorf("an unknown stats code gives %q, want %q", w.Code, WarnStats)
	}
}
