package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/internal/digest"
)

// Ledger is an experiment's ledger read back: for reports (Markdown,
// JSON, HTML) and apply. Open verifies what it reads: every candidate
// against its hash, every unit file against the hash its journal line
// recorded.
type Ledger struct {
	Dir        string
	RunsRoot   string
	Manifest   *Manifest
	Campaign   *Campaign // the snapshot the experiment ran
	Candidates []*Candidate
	Units      []*Unit
	lastRound  *RoundRecord // the journal's last sequential round
}

// Open reads the ledger dir.
func Open(dir string) (*Ledger, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	m, err := readManifest(abs)
	if err != nil {
		return nil, err
	}
	l := &Ledger{Dir: abs, RunsRoot: filepath.Dir(filepath.Dir(abs)), Manifest: m, Campaign: &Campaign{}}
	if err := json.Unmarshal(m.Campaign, l.Campaign); err != nil {
		return nil, fmt.Errorf("experiment: %s: the campaign snapshot does not decode: %w", abs, err)
	}
	if h, err := digest.Value(l.Campaign); err != nil || h != m.CampaignHash {
		return nil, fmt.Errorf("experiment: %s: the campaign snapshot does not match its hash (the manifest was edited)", abs)
	}
	if m.CampaignPath != "" {
		l.Campaign.Path, l.Campaign.Dir = m.CampaignPath, filepath.Dir(m.CampaignPath)
	}
	for _, ref := range m.Candidates {
		c, err := readCandidate(abs, ref)
		if err != nil {
			return nil, err
		}
		l.Candidates = append(l.Candidates, c)
	}
	j, err := readJournal(abs)
	if err != nil {
		return nil, err
	}
	if l.Units, err = readUnits(abs, j); err != nil {
		return nil, err
	}
	l.lastRound = j.lastRound
	if m.Status != StatusRunning && m.Status != StatusAborted && j.spend.Units != m.Spent.Units {
		return nil, fmt.Errorf("experiment: %s: the manifest counts %d finished units, the journal %d", abs, m.Spent.Units, j.spend.Units)
	}
	return l, nil
}

// splits are the ledger's splits in order.
func (l *Ledger) splits() []string {
	var out []string
	for _, s := range []string{SplitTrain, SplitValidation, SplitTest} {
		if _, ok := l.Manifest.Splits[s]; ok {
			out = append(out, s)
		}
	}
	return out
}

// Evaluate recomputes the effects and the decision from the units.
func (l *Ledger) Evaluate(ctx context.Context) (*Evaluation, error) {
	return evaluate(ctx, l.Campaign, l.Manifest.Candidates, newEvidence(l.RunsRoot, l.Units), l.splits(), l.Manifest.Splits)
}

// Verify recomputes the decision and refuses, naming the difference, when
// it is not the one the manifest recorded (decision integrity).
func (l *Ledger) Verify(ctx context.Context) (*Evaluation, error) {
	if err := l.verifyRounds(); err != nil {
		return nil, err
	}
	ev, err := l.Evaluate(ctx)
	if err != nil {
		return nil, err
	}
	stored := l.Manifest.Decision
	if stored == nil {
		if l.Manifest.Status == StatusPassed {
			return nil, fmt.Errorf("experiment: %s has passed but records no decision", l.Dir)
		}
		return ev, nil
	}
	if stored.Rules != ev.Decision.Rules {
		// Decided by other rules: the gates differ in form; the decision
		// itself must still be the one the units support now.
		if was, now := stored.Outcome+" "+stored.Champion, ev.Decision.Outcome+" "+ev.Decision.Champion; was != now {
			return nil, fmt.Errorf("experiment: %s was decided by an earlier version of the decision rules (%s); the current rules decide %s from its units (start a new experiment)",
				l.Dir, strings.TrimSpace(was), strings.TrimSpace(now))
		}
		return ev, nil
	}
	if diff := decisionDiff(stored, ev.Decision); diff != "" {
		return nil, fmt.Errorf("experiment: %s: the units do not support the recorded decision (%s); the ledger was changed after the experiment decided", l.Dir, diff)
	}
	if (l.Manifest.Status == StatusPassed) != (stored.Champion != "") {
		return nil, fmt.Errorf("experiment: %s: status %s does not match the decision %s", l.Dir, l.Manifest.Status, stored.Outcome)
	}
	return ev, nil
}

// decisionDiff names the first difference of two decisions.
func decisionDiff(a, b *Decision) string {
	switch {
	case a.Outcome != b.Outcome:
		return fmt.Sprintf("outcome %s recorded, %s recomputed", a.Outcome, b.Outcome)
	case a.Champion != b.Champion:
		return fmt.Sprintf("champion %s recorded, %s recomputed", a.Champion, b.Champion)
	case strings.Join(a.Ranking, ",") != strings.Join(b.Ranking, ","):
		return fmt.Sprintf("ranking %v recorded, %v recomputed", a.Ranking, b.Ranking)
	}
	ja, _ := digest.CanonicalJSON(a.Gates)
	jb, _ := digest.CanonicalJSON(b.Gates)
	if string(ja) != string(jb) {
		for i := range min(len(a.Gates), len(b.Gates)) {
			if ga, gb := a.Gates[i], b.Gates[i]; ga.Text() != gb.Text() {
				return fmt.Sprintf("gate %q recorded, %q recomputed", ga.Text(), gb.Text())
			}
		}
		return "the gates differ"
	}
	return ""
}

// List returns the ledgers under runsRoot, oldest first.
func List(runsRoot string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(runsRoot, ExperimentsDir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(runsRoot, ExperimentsDir, e.Name()))
		}
	}
	return out, nil
}

// ReadManifest reads a ledger's manifest without verifying the ledger (for
// listings; Open verifies).
func ReadManifest(dir string) (*Manifest, error) { return readManifest(dir) }

// verifyRounds refuses a sequential ledger whose journaled e-processes
// are not those its units give: the last round's states are replayed
// from the units and compared.
func (l *Ledger) verifyRounds() error {
	if l.Campaign.Sequential == nil || l.lastRound == nil {
		return nil
	}
	e, err := newSeqEngine(l.Campaign, l.Manifest.Candidates, caseIDs(l.Manifest.Splits))
	if err != nil {
		return err
	}
	idx := indexSamples(newEvidence(l.RunsRoot, l.Units))
	for r := 1; r <= l.lastRound.Round; r++ {
		if _, err := e.observe(r, idx); err != nil {
			return fmt.Errorf("experiment: %s: the journal records round %d, but its units do not replay: %w", l.Dir, l.lastRound.Round, err)
		}
	}
	want, _ := json.Marshal(e.record())
	got, _ := json.Marshal(l.lastRound)
	if string(want) != string(got) {
		return fmt.Errorf("experiment: %s: the sequential tests the journal records after round %d are not those its units give; the ledger was changed", l.Dir, l.lastRound.Round)
	}
	return nil
}
