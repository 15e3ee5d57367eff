// Package exrun is what the real-agent examples share: finding the CLI,
// a preflight, the suite run, and a table of the results.
package exrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/clis"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
)

// Suite checks the cases with Preflight, prints title, runs them as a
// suite, prints one row per run and where the records are. It returns an
// error unless every case passed.
func Suite(ctx context.Context, w io.Writer, o *orchestrator.Orchestrator, cases []*lux.Case, title string) error {
	if diags := o.Preflight(ctx, cases); !orchestrator.Healthy(diags) {
		for _, d := range diags {
			if d.Status != orchestrator.StatusPass {
				fmt.Fprintln(w, d)
			}
		}
		return errors.New("preflight failed")
	}
	fmt.Fprintln(w, title)
	res, err := o.RunSuite(ctx, cases)
	if err != nil && res == nil {
		return err
	}
	Table(w, res)
	abs, _ := filepath.Abs(res.Dir)
	fmt.Fprintf(w, "\nRecords: %s\n", abs)
	if err != nil {
		return err
	}
	var failed []string
	for _, it := range res.Manifest.Items {
		if it.Passed == nil || !*it.Passed {
			failed = append(failed, it.CaseID)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("cases not passed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// FindCLI returns the agent CLI name to run: flagValue (the example's
// -name flag) when given, else the one in the CLI cache
// .ci/install-clis.sh fills, else name on PATH. The error says how to
// install it.
func FindCLI(name, flagValue, installHint string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := clis.Lookup(name); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s is not installed: run .ci/install-clis.sh, or %s, or pass -%s", name, installHint, name)
}

// Progress returns an orchestrator progress callback that prints a line
// as each run starts.
func Progress(w io.Writer) func(orchestrator.Update) {
	return func(u orchestrator.Update) {
		if u.Kind == orchestrator.RunStarted {
			fmt.Fprintf(w, "  running %s...\n", u.CaseID)
		}
	}
}

// Table prints one row per run: verdict, exit, questions and approvals
// asked, and the agent's tokens and cost ("unavailable" when the agent
// reported none).
func Table(w io.Writer, res *record.Suite) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tVERDICT\tEXIT\tASKED\tAPPROVALS\tTOKENS\tCOST (USD)")
	for _, s := range res.Summary.Samples {
		verdict := strings.ToUpper(string(s.Verdict()))
		tokens, cost := "unavailable", "unavailable"
		if v, ok := s.Metrics["agent.total"]; ok {
			tokens = fmt.Sprintf("%.0f", v)
		}
		if v, ok := s.Metrics["cost.usd"]; ok {
			cost = fmt.Sprintf("%.6f", v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%s\t%s\n", s.CaseID, verdict, s.ExitReason,
			s.Metrics["interrupts.ask"], s.Metrics["interrupts.approve"], tokens, cost)
	}
	tw.Flush()
}
