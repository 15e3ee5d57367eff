package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
)

// SuitePage is one suite: its totals and one row per case.
type SuitePage struct {
	Dir       string
	SuiteID   string
	Status    string
	StartedAt string
	// Label and GitBranch are the suite's label and the git branch it ran
	// on, as its manifest records them ("" when none).
	Label, GitBranch string
	Totals           []Fact
	// PassK is pass@k and pass^k over the cases, k the suite's
	// repetitions, with the estimators' method; nil with fewer than two
	// repetitions.
	PassK *record.PassK
	// PassRate is the share of runs that passed; PassRateInterval its
	// confidence interval over the cases (clusters when declared).
	PassRate         string
	PassRateInterval string
	Cases            []CaseRow
	// RowLimit is how many matching rows the page lays out before "show
	// all" (rows are all in the page; the rest are hidden until asked for).
	RowLimit int
	// Tags, Clusters and Verdicts are the values the rows can be filtered by.
	Tags     []string
	Clusters []string
	Verdicts []string
	// FailedAssertions are the ids of the assertions that failed in some run.
	FailedAssertions []string
	// Runs are the runs whose details the page embeds (a static page);
	// RunsNote says which were left out.
	Runs     []*RunPage
	RunsNote string
	// Pairs are the paired views of flaky cases (a repetition that passed
	// against one that did not) a static page embeds; PairsNote says
	// which were left out.
	Pairs     []*PairPage
	PairsNote string
	// Errors are the suite's own, beside its runs' verdicts (suite.json):
	// what stopped it, its error, and a suite hook's failed cleanup.
	Errors []Fact
	// Live, on a served page of a suite still running, refreshes it as
	// runs finish.
	Live          *Live
	done, planned int
}

// CaseRow is one case of a suite over its repetitions.
type CaseRow struct {
	CaseID  string
	Cluster string
	Tags    []string
	// Verdict is pass (every graded run passed), fail (none did), flaky
	// (some did), error (no run graded, some could not be), ungraded, or
	// not-run (no run ran yet).
	Verdict  string
	Runs     []RunCell
	Score    string
	ScoreKey float64 // for sorting; -1 without a score
	Failed   []FailedAssertion
	Tokens   string
	TokenKey float64
	Duration string
	DurKey   float64
	// Href leads to the run that best explains the case (the first that
	// did not pass); PairHref, on a served page, to the paired view of a
	// repetition that passed and one that did not.
	Href, PairHref string
	// FailedIDs are the ids of the failed assertions, for filtering.
	FailedIDs string
	pair      [2]string // a passing and a failing run's directories
}

// RunCell is one repetition in a case's pass/fail strip.
type RunCell struct {
	Repetition int
	Verdict    string // the run's record.Verdict as a class name: pass, fail, error, cancelled, not-run, ungraded
	Title      string
	Href       string
	dir        string // the run's directory
}

// FailedAssertion is an assertion that failed in some runs of a case: the
// first run's failure, as the suite's rows say it (record.FailedAssertions),
// and in how many runs it failed.
type FailedAssertion struct {
	record.FailedAssertion
	Runs int
	Why  string // the failure's Text, clipped
}

// Suite reads the suite directory dir into its page, embedding the
// details of at most opts.MaxEmbeddedRuns runs.
func Suite(ctx context.Context, dir string, opts Options) (*SuitePage, error) {
	return suitePage(ctx, dir, opts.withDefaults(), nil)
}

type caseBuild struct {
	row           *CaseRow
	passed        int // runs that passed
	graded        int // runs that passed or failed
	errored       int // runs the harness could not grade
	scores        []float64
	tokens, durs  []float64
	tokensMissing bool
	failed        map[string]*FailedAssertion
	failedOrder   []string
	firstRunDir   string
	ran           int // runs that ran (not pending)
}

// suitePage builds the page; with links nil it embeds run details (a
// static file), else it links each run to its own page.
func suitePage(ctx context.Context, dir string, o Options, ln links) (*SuitePage, error) {
	s, err := record.ReadSuite(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	m := s.Manifest
	p := &SuitePage{Dir: dir, SuiteID: m.SuiteID, Status: string(m.LiveStatus()), StartedAt: stamp(m.StartedAt), RowLimit: o.MaxRows,
		Label: m.Label, GitBranch: m.GitBranch, PassK: record.SuitePassK(m.Items, m.Repetitions)}
	samples := map[int]*record.Sample{}
	if s.Summary != nil {
		for i := range s.Summary.Samples {
			samples[s.Summary.Samples[i].Index] = &s.Summary.Samples[i]
		}
	}
	var (
		order           []string
		byCase          = map[string]*caseBuild{}
		counts          = record.NewSummaryBuilder(m.SuiteID) // the verdict counts, as the suite's summary has them
		noUsage, ran    int
		tokens, cost    float64
		dur             float64
		costRuns        int
		embedCandidates []int
	)
	for i, it := range m.Items {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
		}
		cb := byCase[it.CaseID]
		if cb == nil {
			cb = &caseBuild{row: &CaseRow{CaseID: it.CaseID, Cluster: it.Cluster}, failed: map[string]*FailedAssertion{}}
			byCase[it.CaseID] = cb
			order = append(order, it.CaseID)
		}
		runDir := s.RunDir(i)
		if cb.firstRunDir == "" {
			cb.firstRunDir = runDir
		}
		verdict := it.Verdict()
		counts.Add(i, it, nil, nil)
		cell := RunCell{Repetition: it.Repetition, Verdict: cssName(verdict), Title: fmt.Sprintf("repetition %d: %s", it.Repetition, verdict), dir: runDir}
		if verdict == record.VerdictNotRun {
			cb.row.Runs = append(cb.row.Runs, cell)
			continue
		}
		ran++
		cb.ran++
		row, measured, err := runRow(it, verdict, runDir, samples[i])
		if err != nil {
			return nil, fmt.Errorf("report: suite %s: %w", dir, err)
		}
		cell.Title = cellTitle(row)
		switch verdict {
		case record.VerdictPass:
			cb.passed++
			cb.graded++
		case record.VerdictFail:
			cb.graded++
			embedCandidates = append(embedCandidates, i)
		case record.VerdictError:
			cb.errored++
			embedCandidates = append(embedCandidates, i)
		default:
			embedCandidates = append(embedCandidates, i)
		}
		if row.Score != nil {
			cb.scores = append(cb.scores, *row.Score)
		}
		if row.AgentTokens != nil {
			tokens += float64(*row.AgentTokens)
			cb.tokens = append(cb.tokens, float64(*row.AgentTokens))
		} else {
			noUsage++
			cb.tokensMissing = true
		}
		if row.AgentCostUSD != nil {
			cost += *row.AgentCostUSD
			costRuns++
		}
		if measured {
			dur += float64(row.DurationMS)
			cb.durs = append(cb.durs, float64(row.DurationMS))
		}
		for _, f := range row.FailedAssertions {
			fa := cb.failed[f.ID]
			if fa == nil {
				fa = &FailedAssertion{FailedAssertion: f, Why: clip(f.Text(), 300)}
				cb.failed[f.ID] = fa
				cb.failedOrder = append(cb.failedOrder, f.ID)
			}
			fa.Runs++
		}
		if ln != nil {
			cell.Href = ln.run(runDir)
		}
		cb.row.Runs = append(cb.row.Runs, cell)
	}
	tot := counts.Build(m.Status, m.StartedAt).Totals
	p.done, p.planned = tot.Completed, tot.Attempts
	p.PassRate = fmt.Sprintf("%s (%d passed of %d graded runs)", pct(tot.PassRate), tot.Passed, tot.Graded)
	p.PassRateInterval = passRateInterval(order, byCase)
	p.Totals = []Fact{
		{"runs", fmt.Sprintf("%d of %d planned ran (%d not run)", tot.Completed, tot.Attempts, tot.Pending)},
		{"cases", fmt.Sprint(len(order))},
		{"graded", fmt.Sprintf("%d (passed %d, failed %d)", tot.Graded, tot.Passed, tot.Failed)},
		{"errored", fmt.Sprintf("%d (the harness could not get a verdict)", tot.Errored)},
		{"cancelled", fmt.Sprint(tot.Cancelled)},
		{"ungraded", fmt.Sprintf("%d (nothing to grade them)", tot.Ungraded)},
		{"agent tokens", tokensTotal(tokens, ran, noUsage)},
		{"agent cost", costTotal(cost, costRuns, ran)},
		{"duration", fmt.Sprintf("%s in all, %s per run on average", msText(dur), msText(dur/float64(max(1, ran))))},
	}
	p.Errors = suiteErrors(m)
	tags, clusters := map[string]bool{}, map[string]bool{}
	verdicts := map[string]bool{}
	for _, id := range order {
		cb := byCase[id]
		finishCase(cb)
		if cb.firstRunDir != "" {
			if c, err := readCase(cb.firstRunDir); err == nil && c != nil {
				cb.row.Tags = c.Tags
			}
		}
		for _, t := range cb.row.Tags {
			tags[t] = true
		}
		if cb.row.Cluster != "" {
			clusters[cb.row.Cluster] = true
		}
		verdicts[cb.row.Verdict] = true
		p.Cases = append(p.Cases, *cb.row)
	}
	p.Tags, p.Clusters, p.Verdicts = sortedKeys(tags), sortedKeys(clusters), sortedKeys(verdicts)
	if ln == nil {
		if err := embedRuns(p, s, o, embedCandidates); err != nil {
			return nil, fmt.Errorf("report: suite %s: %w", dir, err)
		}
	}
	caseLinks(p, ln)
	if ln == nil {
		embedPairs(p, o)
	}
	return p, nil
}

// suiteErrors are m's own errors, as suite.json records them.
func suiteErrors(m *record.SuiteManifest) []Fact {
	var out []Fact
	if m.StoppedBy != "" {
		out = append(out, Fact{"stopped by", m.StoppedBy})
	}
	if m.Error != "" {
		out = append(out, Fact{"error", m.Error})
	}
	if m.CleanupError != "" {
		out = append(out, Fact{"suite hook cleanup failed", m.CleanupError + " (the runs' verdicts stand; what the hooks started may still be running)"})
	}
	return out
}

// cssName is a verdict as a class name: "not run" is "not-run".
func cssName(v record.Verdict) string { return strings.ReplaceAll(string(v), " ", "-") }

// runRow is the run's row as every suite table has it (record.NewRunRow:
// the CLI's table, JSON and JUnit too), and whether it holds the run's
// measurements. A run that passed and whose measurements the suite's
// summary holds is not read again: its row takes them from the summary
// (what record.RunMetrics gave when the suite ended). Any other run's row
// is built from its records; an unreadable run's (a run directory
// removed) says what the manifest and summary say, and a record changed
// since it was sealed is refused (refused): an error.
func runRow(it record.SuiteItem, v record.Verdict, runDir string, sm *record.Sample) (record.RunRow, bool, error) {
	if runDir != "" && (v != record.VerdictPass || sm == nil || sm.Metrics == nil) {
		meta, g, err := record.ReadMetadata(runDir)
		if refused(err) {
			return record.RunRow{}, false, err
		}
		if meta != nil {
			return record.NewRunRow(it.CaseID, it.Repetition, v, runDir, meta, g, it.Error), true, nil
		}
	}
	row := record.NewRunRow(it.CaseID, it.Repetition, v, runDir, nil, nil, it.Error)
	row.ExitReason, row.Score = it.ExitReason, it.Score
	if sm == nil {
		return row, false, nil
	}
	row.Score = sm.Score
	if sm.Metrics == nil {
		return row, false, nil
	}
	row.DurationMS = int64(sm.Metrics["durationMs"])
	if total, ok := sm.Metrics["agent.total"]; ok {
		n := int64(total)
		row.AgentTokens = &n
	}
	if c, ok := sm.Metrics["cost.usd"]; ok {
		row.AgentCostUSD = &c
	}
	return row, true, nil
}

// cellTitle is a run's cell's title: its repetition and verdict, how it
// ended when not done, and why (the row's reason), and its score.
func cellTitle(r record.RunRow) string {
	title := fmt.Sprintf("repetition %d: %s", r.Repetition, r.Verdict)
	ended := r.ExitReason != "" && r.ExitReason != lux.ExitDone
	switch {
	case ended && r.Reason != "":
		title += " (" + string(r.ExitReason) + ": " + plain(r.Reason) + ")"
	case ended:
		title += " (" + string(r.ExitReason) + ")"
	case r.Reason != "":
		title += " (" + plain(r.Reason) + ")"
	}
	if r.Score != nil {
		title += ", score " + score(*r.Score)
	}
	return title
}

func finishCase(cb *caseBuild) {
	r := cb.row
	switch {
	case cb.ran == 0:
		r.Verdict = "not-run" // pending, or never ran
	case cb.graded == 0 && cb.errored > 0:
		r.Verdict = "error"
	case cb.graded == 0:
		r.Verdict = "ungraded"
	case cb.passed == cb.graded:
		r.Verdict = "pass"
	case cb.passed == 0:
		r.Verdict = "fail"
	default:
		r.Verdict = "flaky"
	}
	r.Score, r.ScoreKey = "–", -1
	if len(cb.scores) > 0 {
		v := meanOf(cb.scores)
		r.Score, r.ScoreKey = score(v), v
	}
	r.Tokens, r.TokenKey = "unavailable", -1
	if len(cb.tokens) > 0 {
		v := meanOf(cb.tokens)
		r.Tokens, r.TokenKey = compare.FormatValue("tokens", v), v
		if cb.tokensMissing {
			r.Tokens += " (some runs unavailable)"
		}
	}
	r.Duration, r.DurKey = "–", -1
	if len(cb.durs) > 0 {
		v := meanOf(cb.durs)
		r.Duration, r.DurKey = msText(v), v
	}
	for _, k := range cb.failedOrder {
		r.Failed = append(r.Failed, *cb.failed[k])
	}
}

// passRateInterval is the interval of the mean per-case pass rate, the
// case (or its cluster) being the unit, from stats.Mean.
func passRateInterval(order []string, byCase map[string]*caseBuild) string {
	var values []float64
	var clusters []string
	anyCluster := false
	for _, id := range order {
		cb := byCase[id]
		if cb.graded == 0 {
			continue
		}
		values = append(values, float64(cb.passed)/float64(cb.graded))
		clusters = append(clusters, cb.row.Cluster)
		anyCluster = anyCluster || cb.row.Cluster != ""
	}
	if !anyCluster {
		clusters = nil
	}
	if len(values) == 0 {
		return "no graded run"
	}
	iv, err := stats.Mean(values, clusters, stats.Config{})
	if err != nil {
		return "no interval: " + stats.Message(err)
	}
	units := fmt.Sprintf("%d %s", iv.N, plural(iv.N, "case", "cases"))
	if iv.Units < iv.N {
		units += fmt.Sprintf(" in %d clusters", iv.Units)
	}
	lo, hi, cut := iv.Lower, iv.Upper, ""
	if lo < 0 || hi > 1 {
		// A pass rate lies in [0, 1]; so does any honest interval of one.
		lo, hi = max(lo, 0), min(hi, 1)
		cut = fmt.Sprintf(", cut from [%s, %s] to the range a pass rate can take", pct(iv.Lower), pct(iv.Upper))
	}
	s := fmt.Sprintf("mean per-case pass rate %s [%s, %s] (%s, %g%%, %s%s)", pct(iv.Estimate), pct(lo), pct(hi), iv.Method, 100*iv.Level, units, cut)
	for _, w := range iv.Warnings {
		s += "; " + w.Message()
	}
	return s
}

// embedRuns adds the details of the runs that did not pass, then of the
// others, up to the cap.
// refused reports whether err is a record that must not be read: changed
// since it was sealed, or sealed under a key that cannot be used.
func refused(err error) bool {
	return errors.Is(err, record.ErrSealBroken) || errors.Is(err, record.ErrSealKey)
}

func embedRuns(p *SuitePage, s *record.Suite, o Options, notPassed []int) error {
	items := s.Manifest.Items
	picked := slices.Clone(notPassed)
	if len(picked) < o.MaxEmbeddedRuns {
		skip := make(map[int]bool, len(notPassed))
		for _, i := range notPassed {
			skip[i] = true
		}
		for i, it := range items {
			if it.Status == record.ItemCompleted && !skip[i] {
				picked = append(picked, i)
				if len(picked) >= o.MaxEmbeddedRuns {
					break
				}
			}
		}
	}
	if len(picked) > o.MaxEmbeddedRuns {
		picked = picked[:o.MaxEmbeddedRuns]
	}
	anchors := map[int]string{}
	for _, i := range picked {
		dir := s.RunDir(i)
		if dir == "" {
			continue
		}
		r, err := record.ReadRun(dir, record.ReadOptions{Events: true})
		if refused(err) {
			return err
		}
		if err != nil {
			continue
		}
		rp := runPage(r, o, o.MaxEvents)
		rp.Anchor = fmt.Sprintf("run-%d", i)
		anchors[i] = rp.Anchor
		p.Runs = append(p.Runs, rp)
	}
	completed := 0
	for _, it := range items {
		if it.Status == record.ItemCompleted {
			completed++
		}
	}
	if left := completed - len(p.Runs); left > 0 {
		p.RunsNote = fmt.Sprintf("This file embeds the details of %d of %d runs (those that did not pass first) to stay small; "+
			"`lux view -serve` shows every run, or `lux report -html OUT.html RUN_DIR` writes one run's page.", len(p.Runs), completed)
	}
	// Link the strip cells to the embedded sections.
	pos := map[string]int{}
	for ci, c := range p.Cases {
		pos[c.CaseID] = ci
	}
	next := map[string]int{}
	for i, it := range items {
		ci := pos[it.CaseID]
		ri := next[it.CaseID]
		next[it.CaseID]++
		if a, ok := anchors[i]; ok && ri < len(p.Cases[ci].Runs) {
			p.Cases[ci].Runs[ri].Href = "#" + a
		}
	}
	return nil
}

// readCase reads a run's case.json, checked against the run's seal.
func readCase(runDir string) (*record.CaseRecord, error) { return record.ReadCase(runDir) }

func tokensTotal(sum float64, runs, missing int) string {
	if runs > 0 && missing == runs {
		return "unavailable (the agent reported no usage)"
	}
	s := compare.FormatValue("tokens", sum)
	if missing > 0 {
		s += fmt.Sprintf(" (unavailable for %d runs)", missing)
	}
	return s
}

func costTotal(sum float64, n, runs int) string {
	if n == 0 {
		return "unavailable"
	}
	s := fmt.Sprintf("$%.4f", sum)
	if n < runs {
		s += fmt.Sprintf(" (reported by %d of %d runs)", n, runs)
	}
	return s
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
