package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luxeval/lux/record"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// promoted runs the promote fixture and returns its result.
func promoted(t *testing.T) (*fixture, *Result) {
	t.Helper()
	f, c := promoteFixture(t)
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs")})
	require.NoError(t, err)
	require.Equal(t, Promote, res.Decision.Outcome)
	return f, res
}

func TestAnEditedUnitFileIsRefusedByReportAndApply(t *testing.T) {
	f, res := promoted(t)
	l, err := Open(res.Dir)
	require.NoError(t, err)
	var victim *Unit
	for _, u := range l.Units {
		if u.Candidate == "variant-x" {
			victim = u
			break
		}
	}
	path := unitFile(res.Dir, victim.ID)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"casePassed":true`, `"casePassed":false`, 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))

	_, err = BuildReport(ctx(t), res.Dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not match the hash the journal recorded for it")
	_, err = Apply(ctx(t), res.Dir, "")
	require.Error(t, err)
	got, _ := os.ReadFile(filepath.Join(f.dir, "subject", "AGENTS.md"))
	assert.Equal(t, "write a.txt alpha\n", string(got), "nothing was applied")

	// Editing the journal's hash too leaves a ledger whose units do not
	// support its decision.
	j, err := os.ReadFile(filepath.Join(res.Dir, JournalFile))
	require.NoError(t, err)
	j = []byte(strings.Replace(string(j), hashBytes(data), hashBytes([]byte(edited)), 1))
	require.NoError(t, os.WriteFile(filepath.Join(res.Dir, JournalFile), j, 0o600))
	flipAll(t, res.Dir, "variant-x") // so that the decision changes
	_, err = BuildReport(ctx(t), res.Dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the units do not support the recorded decision (outcome promote recorded, retain recomputed)")
	_, err = Apply(ctx(t), res.Dir, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "do not support the recorded decision")
}

// flipAll marks every unit of candidate failed, rewriting the journal's
// hashes to match (a forger who knows the format).
func flipAll(t *testing.T, dir, candidate string) {
	t.Helper()
	var lines []string
	data, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e journalEntry
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		if e.Kind == "unit" {
			b, _ := os.ReadFile(unitFile(dir, e.Unit))
			var u Unit
			require.NoError(t, json.Unmarshal(b, &u))
			if u.Candidate == candidate {
				f := false
				u.Sample.Passed = &f
				b, _ = encodeUnit(&u)
				require.NoError(t, os.WriteFile(unitFile(dir, e.Unit), b, 0o600))
			}
			e.Hash = hashBytes(b)
			nb, _ := json.Marshal(e)
			line = string(nb)
		}
		lines = append(lines, line)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, JournalFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600))
}

func TestApplyRefusesAChangedSubject(t *testing.T) {
	f, res := promoted(t)
	f.write(t, "subject/AGENTS.md", "edited by hand\n")
	_, err := Apply(ctx(t), res.Dir, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no longer matches the tree the experiment measured (changed: AGENTS.md)")

	f.write(t, "subject/AGENTS.md", "write a.txt alpha\n")
	f.write(t, "subject/README.md", "also changed")
	f.write(t, "subject/NEW.md", "added")
	_, err = Apply(ctx(t), res.Dir, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no longer matches the tree the experiment measured (changed: README.md; added: NEW.md)")

	require.NoError(t, os.Remove(filepath.Join(f.dir, "subject", "NEW.md")))
	require.NoError(t, os.Remove(filepath.Join(f.dir, "subject", "README.md")))
	_, err = Apply(ctx(t), res.Dir, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(removed: README.md)")

	f.write(t, "subject/README.md", "not mutable")
	_, err = Apply(ctx(t), res.Dir, "variant-y")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "candidate variant-y is not the champion (variant-x)")
}

func TestApplyRollsBackWhenAWriteFails(t *testing.T) {
	f := newFixture(t, "write a.txt alpha\n")
	f.write(t, "subject/AGENTS.md", "write a.txt\n")
	f.write(t, "subject/CLAUDE.md", "write b.txt beta\n")
	for i, word := range []string{"alpha", "alpha", "alpha", "beta", "beta", "beta"} {
		f.addCase(t, "validation", "case-"+string(rune('a'+i)), "", map[string]string{"alpha": "a.txt", "beta": "b.txt"}[word], word)
	}
	c := f.campaign(t)
	c.Subject.Mutable = []string{"*.md"}
	c.Subject.Exclude = []string{"README.md"}
	// INSTRUCTIONS reads AGENTS.md only; the variant changes both files.
	c.Variants = []Variant{{ID: "both", Files: map[string]string{"AGENTS.md": "write a.txt alpha\n", "CLAUDE.md": "changed\n"}}}
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs")})
	require.NoError(t, err)
	require.Equal(t, "both", res.Decision.Champion)

	orig := writeFile
	t.Cleanup(func() { writeFile = orig })
	writeFile = func(path string, data []byte) error {
		if filepath.Base(path) == "CLAUDE.md" && string(data) == "changed\n" {
			return errors.New("disk full")
		}
		return orig(path, data)
	}
	_, err = Apply(ctx(t), res.Dir, "both")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing CLAUDE.md failed, the files already written were restored: disk full")
	got, _ := os.ReadFile(filepath.Join(f.dir, "subject", "AGENTS.md"))
	assert.Equal(t, "write a.txt\n", string(got), "AGENTS.md was restored")

	writeFile = orig
	a, err := Apply(ctx(t), res.Dir, "both")
	require.NoError(t, err)
	assert.Equal(t, []string{"AGENTS.md", "CLAUDE.md"}, a.Files)
	info, _ := os.Stat(filepath.Join(f.dir, "subject", "AGENTS.md"))
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "apply keeps the file's mode")
}

func TestADriverWithoutExperimentSupportIsRefused(t *testing.T) {
	f, c := promoteFixture(t)
	reg := lux.NewRegistry()
	plain := *subprocess.Plugin()
	plain.Experiment = nil
	require.NoError(t, reg.RegisterDriver(&plain))
	runs := filepath.Join(f.dir, ".lux-runs")
	_, err := Run(ctx(t), reg, c, Options{RunsRoot: runs})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnsupportedDriver))
	assert.Contains(t, err.Error(), `driver "subprocess" supports ordinary eval runs but does not declare controlled experiment support`)
	_, statErr := os.Stat(runs)
	assert.True(t, os.IsNotExist(statErr), "nothing ran, nothing was recorded")
}

func TestABudgetRunningOutEndsTheExperimentFailedAndKeepsItsUnits(t *testing.T) {
	t.Run("runs", func(t *testing.T) {
		f, c := promoteFixture(t)
		c.Budget.MaxRuns = 4
		res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs")})
		require.Error(t, err)
		// Nothing exceeded the budget: it was used up, and what is left undone is said.
		assert.Contains(t, err.Error(), "the maxRuns budget of 4 runs is used up: 4 runs started, 14 of the 18 planned units not run")
		assert.Equal(t, StatusFailed, res.Manifest.Status)
		assert.Equal(t, 4, res.Manifest.Spent.Units)
		l, err := Open(res.Dir)
		require.NoError(t, err)
		assert.Len(t, l.Units, 4)
	})
	t.Run("tokens", func(t *testing.T) {
		f, c := promoteFixture(t)
		c.Budget.MaxTokens = 50 // each run reports 28 tokens
		// Two at a time: the units running when the budget ran out finish
		// and count; the message gives what the ledger records.
		res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Concurrency: 2})
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("the maxTokens budget of 50 is used up: %d tokens spent", res.Manifest.Spent.Tokens))
		assert.Equal(t, StatusFailed, res.Manifest.Status)
		assert.GreaterOrEqual(t, res.Manifest.Spent.Units, 2)
		assert.Contains(t, err.Error(), fmt.Sprintf("%d of the 18 planned units not run", 18-res.Manifest.Spent.Units))
		rep, err := BuildReport(ctx(t), res.Dir)
		require.NoError(t, err)
		assert.Equal(t, "error", rep.Outcome)
		assert.Contains(t, rep.Sentence, "maxTokens")
	})
}

func TestAnAgentThatWritesIntoTheSubjectFailsItsUnit(t *testing.T) {
	f, c := promoteFixture(t)
	c.Variants = []Variant{{ID: "tamper", Files: map[string]string{"AGENTS.md": "write a.txt alpha beta\ntamper\n"}}}
	// The sandbox would refuse the write: without it, the change is caught.
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Sandbox: sandbox.Config{Level: sandbox.LevelNone}})
	require.NoError(t, err)
	n := 0
	for _, u := range res.unitsOf(t, "tamper") {
		n++
		assert.Contains(t, u.Error, "the agent changed the subject tree of candidate tamper during the run")
		require.NotNil(t, u.Sample.Passed)
		assert.False(t, *u.Sample.Passed)
	}
	assert.Equal(t, 6, n)
	assert.NotEqual(t, "tamper", res.Decision.Champion)
	_, err = os.Stat(filepath.Join(f.dir, "subject", "tampered.txt"))
	assert.True(t, os.IsNotExist(err), "the real subject is never touched")
}

func (r *Result) unitsOf(t *testing.T, candidate string) []*Unit {
	t.Helper()
	l, err := Open(r.Dir)
	require.NoError(t, err)
	var out []*Unit
	for _, u := range l.Units {
		if u.Candidate == candidate {
			out = append(out, u)
		}
	}
	return out
}

func TestResume(t *testing.T) {
	f, c := promoteFixture(t)
	runs := filepath.Join(f.dir, ".lux-runs")
	cctx, cancel := context.WithCancel(ctx(t))
	res, err := Run(cctx, testRegistry(t), c, Options{RunsRoot: runs, Progress: func(p Progress) {
		if p.Finished && p.Done == 5 {
			cancel()
		}
	}})
	require.Error(t, err)
	assert.Equal(t, StatusAborted, res.Manifest.Status)
	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	assert.Equal(t, "incomplete", rep.Outcome)

	t.Run("refuses a changed environment", func(t *testing.T) {
		c2 := *c
		c2.Profiles = map[string]Profile{"default": {Driver: c.Profiles["default"].Driver, Environment: json.RawMessage(`{"image":"b"}`)}}
		_, err := Resume(ctx(t), testRegistry(t), res.Dir, &c2, Options{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "arms measured under different conditions are never pooled")
		assert.Contains(t, err.Error(), `profile default: the environment changed: was null, now {"image":"b"}`)
	})
	t.Run("refuses a changed subject", func(t *testing.T) {
		f.write(t, "subject/README.md", "changed")
		defer f.write(t, "subject/README.md", "not mutable")
		_, err := Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "changed since the experiment started")
	})
	t.Run("runs what is missing", func(t *testing.T) {
		res2, err := Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
		require.NoError(t, err)
		assert.Equal(t, StatusPassed, res2.Manifest.Status)
		assert.Equal(t, "variant-x", res2.Decision.Champion)
		assert.Equal(t, 18, res2.Manifest.Spent.Units)
		assert.GreaterOrEqual(t, res2.Manifest.Spent.Runs, 18)
		_, err = Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "a passed ledger is immutable")
	})
}

func TestATornJournalLineIsRepaired(t *testing.T) {
	f, c := promoteFixture(t)
	runs := filepath.Join(f.dir, ".lux-runs")
	cctx, cancel := context.WithCancel(ctx(t))
	res, _ := Run(cctx, testRegistry(t), c, Options{RunsRoot: runs, Progress: func(p Progress) {
		if p.Finished && p.Done == 3 {
			cancel()
		}
	}})
	jf, err := os.OpenFile(filepath.Join(res.Dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = jf.WriteString(`{"kind":"unit","unit":"u-to`)
	require.NoError(t, jf.Close())
	res2, err := Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
	require.NoError(t, err)
	assert.Equal(t, 18, res2.Manifest.Spent.Units)
	_, err = Open(res.Dir)
	require.NoError(t, err)
}

// A process killed between manifest checkpoints has its active time in the
// journal: a resume counts it against maxWallTime.
func TestResumeCountsTheWallTimeTheJournalRecorded(t *testing.T) {
	f, c := promoteFixture(t)
	c.Budget.MaxWallTime = lux.Duration(time.Hour)
	runs := filepath.Join(f.dir, ".lux-runs")
	cctx, cancel := context.WithCancel(ctx(t))
	res, _ := Run(cctx, testRegistry(t), c, Options{RunsRoot: runs, Progress: func(p Progress) {
		if p.Finished && p.Done == 3 {
			cancel()
		}
	}})
	require.Less(t, res.Manifest.Spent.WallTimeMs, time.Hour.Milliseconds())
	// The last line a killed process wrote: two hours in.
	jf, err := os.OpenFile(filepath.Join(res.Dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(jf, `{"kind":"attempt","unit":"u-next","wallTimeMs":%d}`+"\n", (2 * time.Hour).Milliseconds())
	require.NoError(t, err)
	require.NoError(t, jf.Close())

	res2, err := Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the maxWallTime budget of 1h0m0s is used up: 2h0m0")
	assert.Equal(t, StatusFailed, res2.Manifest.Status)
	assert.GreaterOrEqual(t, res2.Manifest.Spent.WallTimeMs, (2 * time.Hour).Milliseconds())
}

func TestValidationCommandsRunOnEachCandidate(t *testing.T) {
	f, c := promoteFixture(t)
	// variant-y's instructions say "fail", which this check refuses.
	c.Subject.Validate = []Command{{Command: "grep", Args: []string{"-q", "write", "AGENTS.md"}}}
	res, err := Run(ctx(t), testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs")})
	require.NoError(t, err)
	var invalid string
	for _, cand := range res.Manifest.Candidates {
		if cand.ID == "variant-y" {
			invalid = cand.Invalid
		} else {
			assert.Empty(t, cand.Invalid, cand.ID)
		}
	}
	assert.Contains(t, invalid, "candidate validation 'grep -q write AGENTS.md' exited")
	assert.Empty(t, res.unitsOf(t, "variant-y"), "no agent runs against an invalid candidate")
	assert.Len(t, res.unitsOf(t, "variant-x"), 6)
	assert.Equal(t, "variant-x", res.Decision.Champion)
	assert.NotContains(t, res.Decision.Eligible, "variant-y")
}

func TestALedgerRunByALiveProcessIsRefused(t *testing.T) {
	f, c := promoteFixture(t)
	cctx, cancel := context.WithCancel(ctx(t))
	res, _ := Run(cctx, testRegistry(t), c, Options{RunsRoot: filepath.Join(f.dir, ".lux-runs"), Progress: func(p Progress) {
		if p.Finished {
			cancel()
		}
	}})
	require.Equal(t, StatusAborted, res.Manifest.Status)
	// This process holds the lock, as a second runner would find it.
	l, err := lock(res.Dir)
	require.NoError(t, err)
	_, err = Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is being run by process")
	l.unlock()
	_, err = Resume(ctx(t), testRegistry(t), res.Dir, c, Options{})
	require.NoError(t, err)
}

// A ledger decided by the earlier decision rules (no "rules" in its
// decision; its gates lack what the current rules add) still reads when
// the current rules reach the same decision, and is refused, saying why,
// when they do not.
func TestALedgerDecidedByEarlierRules(t *testing.T) {
	_, res := promoted(t)
	path := filepath.Join(res.Dir, ManifestFile)
	m, err := readManifest(res.Dir)
	require.NoError(t, err)
	m.Decision.Rules = 0
	for i := range m.Decision.Gates {
		m.Decision.Gates[i].Need = 0
	}
	require.NoError(t, record.WriteJSON(path, m))
	rep, err := BuildReport(ctx(t), res.Dir)
	require.NoError(t, err)
	assert.Equal(t, Promote, rep.Outcome)

	m.Decision.Outcome, m.Decision.Champion = Retain, BaselineID
	require.NoError(t, record.WriteJSON(path, m))
	_, err = BuildReport(ctx(t), res.Dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decided by an earlier version of the decision rules (retain baseline); the current rules decide promote variant-x")
}
