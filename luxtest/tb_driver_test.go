package luxtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/luxtest"
)

// The Test functions report each problem through t.Error, naming the
// plugin, the scenario and the check, and log what each scenario did.
func TestSuitesReportThroughTB(t *testing.T) {
	t.Run("driver", func(t *testing.T) {
		r := recordTB(t, func(tb testing.TB) {
			luxtest.TestDriver(tb, fakeDriver(), luxtest.DriverScenario{
				Name: "twice", Config: json.RawMessage(`{"breaks": ["two-terminal"]}`), Prompt: "go",
			})
		})
		assert.False(t, r.fatal)
		assert.Equal(t, []string{
			`luxtest: driver "fake": [twice] terminal: a second terminal event (error "late failure") after done; a session has exactly one`,
		}, r.errors)
		assert.Equal(t, []string{`luxtest: driver "fake": twice: ready, progress, done; exit done; 2 artifacts`}, r.logs)
	})
	t.Run("answerer", func(t *testing.T) {
		r := recordTB(t, func(tb testing.TB) {
			luxtest.TestAnswerer(tb, scripted.Plugin(), json.RawMessage(`{"rules": [{"match": "database", "answer": "PostgreSQL"}]}`),
				lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which editor?"})
		})
		if assert.Len(t, r.errors, 1) {
			assert.True(t, strings.HasPrefix(r.errors[0], `luxtest: answerer "scripted": [interrupts[0]] answer: Answer to ask interrupt "q1" ("Which editor?") failed: `), r.errors[0])
		}
	})
	t.Run("assertion", func(t *testing.T) {
		r := recordTB(t, func(tb testing.TB) {
			luxtest.TestAssertion(tb, fakeAssertion("score-above-one"), luxtest.AssertionCase{
				Name: "present", Config: json.RawMessage(`{"path": "out.txt"}`), Run: luxtest.NewRun(tb, map[string]string{"out.txt": "x"}), Want: luxtest.Pass,
			})
		})
		assert.Equal(t, []string{`luxtest: assertion "fake-exists": [present] score: Evaluate returned score 1.5; a score is in [0,1]`}, r.errors)
	})
	t.Run("conforming plugins report nothing", func(t *testing.T) {
		r := recordTB(t, func(tb testing.TB) {
			luxtest.TestDriver(tb, fakeDriver(), luxtest.DriverScenario{Config: json.RawMessage(`{"ask": true}`), Prompt: "go"})
		})
		assert.Empty(t, r.errors)
	})
}
