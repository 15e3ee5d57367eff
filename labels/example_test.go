package labels_test

import (
	"fmt"

	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// Agree measures gradings against people's labels: here a grader that
// passes everything, against four labels of which two fail.
func ExampleAgree() {
	pass, fail := true, false
	var items []labels.Graded
	for _, want := range []bool{pass, fail, pass, fail} {
		items = append(items, labels.Graded{
			Label:   labels.Label{Expected: labels.Expected{Passed: &want}},
			Grading: &record.Grading{Passed: &pass},
		})
	}
	r := labels.Agree(items, stats.Config{Seed: 1})
	c := r.Case
	fmt.Printf("TP %d FP %d FN %d TN %d\n", c.TP, c.FP, c.FN, c.TN)
	fmt.Printf("agreement %.2f, false positives %.2f, kappa %.2f\n", *c.Agreement, *c.FalsePositiveRate, *c.Kappa.Estimate)
	// Output:
	// TP 2 FP 2 FN 0 TN 0
	// agreement 0.50, false positives 1.00, kappa 0.00
}
