package compare_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// Two runs of one case, before and after a change to its fixtures (a
// skill, say): the fixtures differ on purpose, so the comparison varies
// them, and the agent that passed before now fails one assertion.
func Example() {
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	newRun := func(fixtures string, testsPass bool) *record.Run {
		passed, score := testsPass, 0.5
		if testsPass {
			score = 1
		}
		return &record.Run{
			Metadata: &record.Metadata{
				CaseID: "greet/hello", StartedAt: start, EndedAt: start.Add(90 * time.Second), ExitReason: lux.ExitDone,
				Driver:     record.DriverInfo{Name: "cursor"},
				Usage:      lux.Usage{Agent: nil}, // this agent reports no token usage
				Provenance: record.Provenance{CaseHash: "c1", AssertionsHash: "a1", FixturesHash: fixtures},
			},
			Grading: &record.Grading{Passed: &passed, Score: &score, Assertions: []record.AssertionOutcome{
				{ID: "readme", Passed: true, Score: 1},
				{ID: "tests", Passed: testsPass, Score: map[bool]float64{true: 1}[testsPass]},
			}},
		}
	}
	a, b := newRun("skill-v1", true), newRun("skill-v2", false)

	c, err := compare.RunRecords(a, b, compare.Options{Vary: []compare.Field{compare.FieldFixturesHash}})
	if err != nil {
		panic(err)
	}
	fmt.Println("verdict:", c.Verdict)
	fmt.Println("gate failed:", c.Gate.Failed)
	for _, r := range c.Reasons {
		fmt.Println(" -", r)
	}
	var text strings.Builder
	_ = c.WriteText(&text)
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.Contains(line, "agent usage") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// verdict: worse
	// gate failed: true
	//  - case verdict pass → fail
	//  - assertion "tests" pass → fail
	// agent usage       not reported by either run
}

// Two suites compared case by case: each case's repetitions are reduced to
// its mean first, and the pass rate's paired difference gets a Student t
// interval over the cases. Here 12 of 40 cases lost their pass.
func ExampleSuiteRecords() {
	summary := func(failing int) *record.Suite {
		b := record.NewSummaryBuilder("s")
		for i := range 40 {
			passed := i >= failing
			item := record.SuiteItem{
				CaseID: fmt.Sprintf("case-%02d", i), Repetition: 1, Status: record.ItemCompleted,
				ExitReason: lux.ExitDone, Passed: &passed,
			}
			b.Add(i, item, &record.Metadata{CaseID: item.CaseID}, nil)
		}
		return &record.Suite{Summary: b.Build(record.SuitePassed, time.Time{})}
	}
	c, err := compare.SuiteRecords(context.Background(), summary(0), summary(12), compare.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Verdict, "| gate failed:", c.Gate.Failed)
	fmt.Println(c.Reasons[0])
	fmt.Printf("flips: %d pass → fail, McNemar p = %.5f\n", c.Flips.PassToFail, c.Flips.PValue)
	// Output:
	// worse | gate failed: true
	// pass rate fell (95% t interval excludes 0): -30.0 pts [-44.8 pts, -15.2 pts] over 40 cases
	// flips: 12 pass → fail, McNemar p = 0.00049
}
