package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/luxeval/lux/compare"
)

// Report is what `lux report` shows of a ledger; its JSON form is the
// output of `lux report -json` (schema "lux.experiment-report/v1").
type Report struct {
	Schema       string `json:"schema"`
	Dir          string `json:"dir"`
	ExperimentID string `json:"experimentId"`
	CampaignID   string `json:"campaignId"`
	Status       Status `json:"status"`
	// Outcome is promote, retain, reject or inconclusive; "incomplete"
	// while running or aborted, "error" when it failed without deciding.
	Outcome  string   `json:"outcome"`
	Sentence string   `json:"sentence"` // the decision in one sentence
	Verdicts []string `json:"verdicts"` // one line per candidate
	Error    string   `json:"error,omitempty"`
	Champion string   `json:"champion,omitempty"`
	Ranking  []string `json:"ranking"`
	Eligible []string `json:"eligible"`
	Gates    []Gate   `json:"gates"`
	// Evidence is each candidate's measurements per profile and split.
	Evidence []Evidence `json:"evidence"`
	Effects  []Effect   `json:"effects"`
	// Agreement is, in a grader experiment, how each candidate's
	// gradings agree with the labels.
	Agreement []Agreement `json:"agreement,omitempty"`
	Spent     Spend       `json:"spent"`
	Budget    Budget      `json:"budget"`
	// Reproduce are the commands to look at the runs and apply the champion.
	Reproduce []string `json:"reproduce"`
}

// ReportSchema names the JSON form of Report.
const ReportSchema = "lux.experiment-report/v1"

// Evidence is one candidate's measurements on one profile and split.
type Evidence struct {
	Candidate string   `json:"candidate"`
	Bytes     int64    `json:"bytes"`
	Invalid   string   `json:"invalid,omitempty"`
	Profile   string   `json:"profile"`
	Split     string   `json:"split"`
	Cases     int      `json:"cases"`
	Runs      int      `json:"runs"`
	PassRate  float64  `json:"passRate"` // mean of the per-case pass rates (in a grader experiment: of verdict agreement)
	Tokens    *float64 `json:"tokens"`   // mean agent tokens per run (in a grader experiment: judge tokens); null when unreported
	Questions float64  `json:"questions"`
	ToolCalls float64  `json:"toolCalls"`
}

// BuildReport reads the ledger dir, verifies it (candidates, units and the
// decision, see Ledger.Verify) and returns its report.
func BuildReport(ctx context.Context, dir string) (*Report, error) {
	l, err := Open(dir)
	if err != nil {
		return nil, err
	}
	m := l.Manifest
	ev, err := l.Verify(ctx)
	if err != nil {
		if m.Decision != nil || m.Status != StatusFailed || m.Error == "" {
			return nil, err
		}
		// A failed experiment whose units cannot be evaluated (no case
		// pairs) reports its error and no effects.
		ev = &Evaluation{Decision: &Decision{Ranking: []string{}, Eligible: []string{}, Gates: []Gate{}}}
	}
	r := &Report{
		Schema: ReportSchema, Dir: l.Dir, ExperimentID: m.ExperimentID, CampaignID: m.CampaignID, Status: m.Status,
		Error: m.Error, Spent: m.Spent, Budget: m.Budget, Ranking: ev.Decision.Ranking, Eligible: ev.Decision.Eligible,
		Gates: ev.Decision.Gates, Effects: ev.Effects, Evidence: []Evidence{}, Agreement: ev.Agreement,
		// lux view lists the experiment with the runs under its runs root;
		// each unit's run is an ordinary run directory (Unit.RunDir).
		Reproduce: []string{fmt.Sprintf("lux view -runs-root '%s'", l.RunsRoot), fmt.Sprintf("lux report '%s'", l.Dir)},
	}
	switch {
	case m.Decision != nil:
		r.Outcome, r.Champion, r.Sentence, r.Verdicts = m.Decision.Outcome, m.Decision.Champion, ev.Sentence(), ev.Verdicts()
		if r.Outcome == Promote {
			r.Reproduce = append(r.Reproduce, fmt.Sprintf("lux apply '%s'", l.Dir))
		}
	case m.Status == StatusRunning || m.Status == StatusAborted:
		r.Outcome, r.Sentence = "incomplete", fmt.Sprintf("incomplete: %d of %d units finished; resume with lux experiment -resume '%s'", m.Spent.Units, m.Units, l.Dir)
		r.Reproduce = append(r.Reproduce, fmt.Sprintf("lux experiment -resume '%s'", l.Dir))
	default:
		r.Outcome, r.Sentence = "error", "failed: "+m.Error
	}
	if r.Verdicts == nil {
		r.Verdicts = []string{}
	}
	evd := newEvidence(l.RunsRoot, l.Units)
	for _, cand := range m.Candidates {
		for _, profile := range l.Campaign.profileNames() {
			for _, split := range l.splits() {
				r.Evidence = append(r.Evidence, evidenceOf(cand, profile, split, evd, l.Campaign.Grader != nil))
			}
		}
	}
	return r, nil
}

func evidenceOf(cand CandidateRef, profile, split string, ev *evidence, grader bool) Evidence {
	e := Evidence{Candidate: cand.ID, Bytes: cand.Bytes, Invalid: cand.Invalid, Profile: profile, Split: split}
	samples := ev.samples[arm{cand.ID, profile, split}]
	e.Runs = len(samples)
	caseMean := func(metric string) (float64, int, bool) {
		ids, _, means, err := compare.CaseMeans(samples, metric)
		if err != nil || len(means) == 0 {
			return 0, len(ids), false
		}
		return mean(means), len(ids), true
	}
	e.PassRate, e.Cases, _ = caseMean(compare.MetricPassRate)
	tokens := "agent.total"
	if grader {
		tokens = MetricJudgeTokens
	}
	if v, _, ok := caseMean(tokens); ok {
		e.Tokens = &v
	}
	e.Questions, _, _ = caseMean("interrupts.ask")
	e.ToolCalls, _, _ = caseMean("toolCalls")
	return e
}

// WriteMarkdown writes the report as Markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Experiment %s\n\n", md(r.CampaignID))
	fmt.Fprintf(&b, "**%s**\n\n", md(r.Sentence))
	fmt.Fprintf(&b, "- ledger: `%s`\n- status: %s\n", md(r.Dir), r.Status)
	if r.Error != "" {
		fmt.Fprintf(&b, "- error: %s\n", md(r.Error))
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "- %s\n", md(v))
	}
	b.WriteString("\n## Gates\n\n| candidate | constraint | value | interval | units | result |\n|---|---|---|---|---|---|\n")
	for _, g := range r.Gates {
		iv := ""
		if g.Lower != nil {
			iv = fmt.Sprintf("[%s, %s] %s %g%%", g.number(*g.Lower), g.number(*g.Upper), g.Method, 100*g.Level)
		}
		result := "passed"
		switch {
		case g.Inconclusive && g.Sequential != nil:
			result = "undecided: " + string(g.Sequential.Stop)
		case g.Inconclusive:
			result = fmt.Sprintf("undecided: too few units (%d, needs %d)", g.Units, g.Need)
		case !g.Passed:
			result = "failed"
		}
		if g.Note != "" {
			result += " (" + g.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s |\n", md(g.Candidate), md(constraintText(g)), g.number(g.Value), iv, g.Units, md(result))
	}
	if lines := SequentialLines(r.Gates); len(lines) > 0 {
		b.WriteString("\n## Sequential tests\n\n")
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, "  "); ok {
				fmt.Fprintf(&b, "  - %s\n", md(rest))
			} else {
				fmt.Fprintf(&b, "- %s\n", md(l))
			}
		}
	}
	if len(r.Agreement) > 0 {
		b.WriteString("\n## Evidence\n\n| candidate | profile | split | labels | gradings | verdict agreement | judge tokens | questions | tool calls | bytes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("\n## Evidence\n\n| candidate | profile | split | cases | runs | pass rate | agent tokens | questions | tool calls | bytes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, e := range r.Evidence {
		tokens := "unavailable"
		if e.Tokens != nil {
			tokens = fmt.Sprintf("%.0f", *e.Tokens)
		}
		name := md(e.Candidate)
		if e.Invalid != "" {
			name += " (invalid: " + md(e.Invalid) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.3f | %s | %.2f | %.2f | %d |\n", name, md(e.Profile), e.Split, e.Cases, e.Runs, e.PassRate, tokens, e.Questions, e.ToolCalls, e.Bytes)
	}
	if lines := AgreementLines(r.Agreement); len(lines) > 0 {
		b.WriteString("\n## Agreement with the labels\n\n")
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, "  "); ok {
				fmt.Fprintf(&b, "  - %s\n", md(rest))
			} else {
				fmt.Fprintf(&b, "- %s\n", md(l))
			}
		}
	}
	b.WriteString("\n## Effects against the baseline\n\n| candidate | profile | split | effect |\n|---|---|---|---|\n")
	for _, e := range r.Effects {
		if !e.NoChange {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", md(e.Candidate), md(e.Profile), e.Split, md(e.IntervalText()))
		}
	}
	if notes := effectNotes(r.Effects); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", md(n))
		}
	}
	s, bu := r.Spent, r.Budget
	b.WriteString("\n## Spend\n\n| | spent | budget |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| runs | %d | %d |\n| judge calls | %s | %d |\n| tokens | %d | %d |\n| cost (USD) | %.4f | %.2f |\n| active time | %dms | %s |\n",
		s.Runs, bu.MaxRuns, md(s.JudgeCallsText()), bu.MaxJudgeCalls, s.Tokens, bu.MaxTokens, s.CostUSD, bu.MaxCostUSD, s.WallTimeMs, bu.MaxWallTime)
	b.WriteString("\n## Reproduce\n\n```sh\n")
	for _, c := range r.Reproduce {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func constraintText(g Gate) string {
	name := metricLabel(g.Metric)
	if g.RelativeTo != "" {
		name += " effect"
		if g.Relative {
			name += " (relative)"
		}
	}
	where := g.Split
	if g.Profile != "" {
		where = g.Profile + ", " + g.Split
	}
	return fmt.Sprintf("%s %s (%s)", name, g.bounds(), where)
}

// md makes text safe in a Markdown table cell: control characters
// blanked, pipes and HTML escaped.
func md(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}
