package cli

import (
	"github.com/luxeval/lux/record"
)

// SuiteReport is what `lux run -json` and `lux view -json SUITE_DIR` print.
type SuiteReport struct {
	Schema  string             `json:"schema"` // "lux.suite/v1"
	Dir     string             `json:"dir"`
	SuiteID string             `json:"suiteId"`
	Status  record.SuiteStatus `json:"status"`
	Runs    []record.SuiteItem `json:"runs"`
	Totals  *record.Outcome    `json:"totals,omitempty"` // absent when the suite never finished
}

func newSuiteReport(dir string, m *record.SuiteManifest, s *record.SuiteSummary) SuiteReport {
	rep := SuiteReport{Schema: "lux.suite/v1", Dir: dir, SuiteID: m.SuiteID, Status: m.LiveStatus(), Runs: m.Items}
	if s != nil {
		rep.Totals = &s.Totals
	}
	return rep
}
