package experiment_test

import (
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/experiment"
)

// Validate reports every problem of a campaign at once, with its field path
// and how to fix it.
func ExampleCampaign_Validate() {
	c := &experiment.Campaign{
		ID:       "skill-wording",
		Subject:  experiment.Subject{Root: "."},
		Profiles: map[string]experiment.Profile{"default": {Driver: &lux.PluginRef{Name: "claude-code"}}},
		Splits:   experiment.Splits{Validation: &experiment.Selector{Patterns: []string{"cases/validation"}}},
		Variants: []experiment.Variant{{ID: "baseline"}},
		Objectives: experiment.Objectives{Constraints: []experiment.Constraint{
			{Metric: "quality.passrate", Split: "test"},
		}},
	}
	fmt.Println(c.Validate())
	// Output:
	// experiment: invalid campaign:
	//   - subject.mutable: required (give globs of the files a candidate may change, e.g. ["CLAUDE.md"])
	//   - variants[0].id: "baseline" is the subject as it is (give the variant another id)
	//   - variants[0].files: required (give the new contents of at least one mutable file)
	//   - objectives.constraints[0].metric: unknown metric "quality.passrate" (use quality.passRate, quality.score, subject.bytes or a run metric such as agent.total, cost.usd, durationMs, interrupts.ask, toolCalls)
	//   - objectives.constraints[0].split: unknown split "test" (the campaign declares: validation)
	//   - objectives.constraints[0]: needs min or max (bound the metric, e.g. {"min": 0.8})
}
