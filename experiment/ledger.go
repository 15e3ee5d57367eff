package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// The ledger of an experiment, <runsRoot>/.experiments/<timestamp>-<id>/:
//
//	experiment.json        the manifest (rewritten atomically)
//	candidates/<id>.json   one immutable file per candidate
//	units/<unit id>.json   one file per finished unit, named by its key
//	journal.jsonl          append-only accounting: unit attempts and finished units with their content hashes
//	trees/<id>/            each candidate's materialized tree, while it runs
//	.lock                  the process running it
const (
	TreesDir       = "trees"
	ExperimentsDir = ".experiments"
	ManifestFile   = "experiment.json"
	CandidatesDir  = "candidates"
	UnitsDir       = "units"
	JournalFile    = "journal.jsonl"
	LockFile       = ".lock"
)

// Status is an experiment's state.
type Status string

// The statuses.
const (
	StatusRunning Status = "running"
	StatusPassed  Status = "passed"  // decided: a champion (a variant or the baseline)
	StatusFailed  Status = "failed"  // no champion, a budget exceeded, or an error
	StatusAborted Status = "aborted" // cancelled: resumable
)

// Manifest is experiment.json.
type Manifest struct {
	SchemaVersion int             `json:"schemaVersion"`
	ExperimentID  string          `json:"experimentId"`
	CampaignID    string          `json:"campaignId"`
	CampaignPath  string          `json:"campaignPath,omitempty"`
	CampaignHash  string          `json:"campaignHash"`
	Campaign      json.RawMessage `json:"campaign"` // the campaign with its defaults, as it ran
	SubjectRoot   string          `json:"subjectRoot"`
	BaseHash      string          `json:"baseHash"` // the subject tree when the experiment started
	// SubjectFiles describes each file of that tree (kind and content
	// hash) by its path, so that apply names the files that changed since;
	// absent in ledgers written before it was kept.
	SubjectFiles map[string]string `json:"subjectFiles,omitempty"`
	CorpusHash   string            `json:"corpusHash"` // the selected cases
	Status       Status            `json:"status"`
	StartedAt    time.Time         `json:"startedAt"`
	EndedAt      *time.Time        `json:"endedAt,omitempty"`
	Error        string            `json:"error,omitempty"`
	// Profiles are the arms' identities: a resumed experiment refuses to
	// pool runs made under a different one.
	Profiles   map[string]ProfileIdentity `json:"profiles"`
	Candidates []CandidateRef             `json:"candidates"`
	Splits     map[string][]CaseRef       `json:"splits"`
	Budget     Budget                     `json:"budget"`
	Spent      Spend                      `json:"spent"`
	Units      int                        `json:"units"` // units planned
	Decision   *Decision                  `json:"decision,omitempty"`
}

// ProfileIdentity is what an arm ran as.
type ProfileIdentity struct {
	Driver         string          `json:"driver"`
	DriverVersion  string          `json:"driverVersion"` // the driver's experiment version
	DriverConfig   string          `json:"driverConfigHash"`
	DriverIdentity json.RawMessage `json:"driverIdentity"`
	Answerer       string          `json:"answerer,omitempty"`
	AnswererConfig string          `json:"answererConfigHash,omitempty"`
	Environment    json.RawMessage `json:"environment,omitempty"`
	// Judges are, in a grader experiment, the CLIs of the rubrics whose
	// config runs a judge other than grader.judge's (DriverIdentity).
	Judges []JudgeIdentity `json:"judges,omitempty"`
}

// JudgeIdentity is the CLI a rubric's own judge runs, as
// internal/command identifies an agent's (version, else content hash).
type JudgeIdentity struct {
	Assertion string             `json:"assertion"`
	Command   record.CommandInfo `json:"command"`
}

// CandidateRef is a candidate in the manifest.
type CandidateRef struct {
	ID    string `json:"id"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
	// Invalid says why the candidate was not run (a validation command
	// failed); it is then never eligible.
	Invalid string `json:"invalid,omitempty"`
}

// CaseRef is a selected case.
type CaseRef struct {
	ID      string `json:"id"`
	Path    string `json:"path,omitempty"`
	Cluster string `json:"cluster,omitempty"`
}

// Spend is what an experiment spent.
type Spend struct {
	Runs       int `json:"runs"`  // agent runs started (units attempted)
	Units      int `json:"units"` // units finished
	JudgeCalls int `json:"judgeCalls"`
	// InterruptedJudgeCalls are the judge calls, counted in JudgeCalls, of
	// grader units interrupted mid-grading (killed or cancelled): what
	// such a unit made was never reported, so it counts at the most it
	// could make, the calls it reserved before it started. Their tokens and
	// cost are not known and not in Tokens and CostUSD.
	InterruptedJudgeCalls int     `json:"interruptedJudgeCalls,omitempty"`
	Tokens                int64   `json:"tokens"` // agent and harness tokens
	CostUSD               float64 `json:"costUsd"`
	WallTimeMs            int64   `json:"wallTimeMs"` // active time, over every segment
}

// JudgeCallsText is the judge calls spent as reports say them: the count,
// and how many of them interrupted units count at their reservation.
func (s Spend) JudgeCallsText() string {
	if s.InterruptedJudgeCalls == 0 {
		return fmt.Sprint(s.JudgeCalls)
	}
	return fmt.Sprintf("%d (%d of them by units interrupted mid-grading, counted at the most they could make; their tokens and cost are not known)", s.JudgeCalls, s.InterruptedJudgeCalls)
}

// Unit is one finished unit: one ordinary run of one case, for one
// candidate, profile, split and repetition.
type Unit struct {
	SchemaVersion int    `json:"schemaVersion"`
	ID            string `json:"id"`
	Candidate     string `json:"candidate"`
	CandidateHash string `json:"candidateHash"`
	Profile       string `json:"profile"`
	Split         string `json:"split"`
	CaseID        string `json:"caseId"`
	Cluster       string `json:"cluster,omitempty"`
	Repetition    int    `json:"repetition"`
	// RunDir is the run's record, relative to the runs root.
	RunDir string `json:"runDir"`
	// Error is why the harness failed the unit (the agent changed the
	// subject); the run then counts as not passed.
	Error  string        `json:"error,omitempty"`
	Sample record.Sample `json:"sample"`
	// Label and Grading are, in a grader experiment, the label the unit
	// is scored against and the candidate's grading of the labelled run
	// (absent when the grading failed: Error says why).
	Label      *labels.Label   `json:"label,omitempty"`
	Grading    *record.Grading `json:"grading,omitempty"`
	Tokens     int64           `json:"tokens"`
	CostUSD    float64         `json:"costUsd"`
	JudgeCalls int             `json:"judgeCalls"`
	FinishedAt time.Time       `json:"finishedAt"`
}

// unitKey is what identifies a unit.
type unitKey struct {
	Candidate     string `json:"candidate"`
	CandidateHash string `json:"candidateHash"`
	Profile       string `json:"profile"`
	Split         string `json:"split"`
	CaseID        string `json:"caseId"`
	Repetition    int    `json:"repetition"`
}

func (k unitKey) id() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return "u-" + hex.EncodeToString(sum[:16])
}

// journalEntry is one line of journal.jsonl.
type journalEntry struct {
	Kind       string  `json:"kind"` // "attempt", "unit" or "round"
	Unit       string  `json:"unit"`
	Hash       string  `json:"hash,omitempty"` // sha256 of the unit file
	Tokens     int64   `json:"tokens,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty"`
	JudgeCalls int     `json:"judgeCalls,omitempty"`
	// ReservedJudgeCalls is, on the attempt line of a grader unit, the
	// most judge calls the unit can make, written (and synced) before it
	// makes any: the unit's line settles it with the calls it made, and a
	// reservation never settled (a kill mid-grading) counts as spent.
	ReservedJudgeCalls int `json:"reservedJudgeCalls,omitempty"`
	// WallTimeMs is the experiment's active time when the unit was
	// recorded, so a resume after a kill -9 counts the time spent since
	// the manifest's last checkpoint.
	WallTimeMs int64 `json:"wallTimeMs,omitempty"`
	// Round is, for a line of kind "round" (a sequential campaign), every
	// sequential gate after the round: written once the round's units are
	// all recorded, so a resume continues the same e-processes from it.
	Round *RoundRecord `json:"round,omitempty"`
}

// journal is the replayed accounting journal.
type journal struct {
	attempts int
	units    map[string]journalEntry // finished, by unit id
	order    []string
	spend    Spend
	// open are the judge-call reservations not yet settled, by unit;
	// lost those a later attempt of the same unit left unsettled.
	open map[string]int
	lost int
	torn int64 // offset of a torn last line; -1 when none
	// lastRound is the last sequential round journaled; nil when none.
	lastRound *RoundRecord
}

// readJournal replays dir's journal. A last line without its newline, or
// that does not decode, is torn (a crash mid-write): it is ignored and its
// offset returned so that a writer can cut it off. Any other bad line is
// an error.
func readJournal(dir string) (*journal, error) {
	j := &journal{units: map[string]journalEntry{}, open: map[string]int{}, torn: -1}
	data, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var off int64
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		var e journalEntry
		bad := json.Unmarshal(line, &e) != nil || (e.Kind != "attempt" && e.Kind != "unit" && e.Kind != "round") || (e.Kind == "round" && e.Round == nil)
		if !complete || bad {
			if !complete || len(rest) == 0 {
				j.torn = off
				break
			}
			return nil, fmt.Errorf("experiment: %s line at byte %d is not a journal entry; the ledger is corrupt", filepath.Join(dir, JournalFile), off)
		}
		j.add(e)
		off += int64(len(line)) + 1
		data = rest
	}
	return j, nil
}

func (j *journal) add(e journalEntry) {
	j.spend.WallTimeMs = max(j.spend.WallTimeMs, e.WallTimeMs)
	switch e.Kind {
	case "attempt":
		j.attempts++
		j.spend.Runs++
		if e.ReservedJudgeCalls > 0 {
			j.lost += j.open[e.Unit] // an earlier attempt never settled
			j.open[e.Unit] = e.ReservedJudgeCalls
		}
	case "round":
		j.lastRound = e.Round
	case "unit":
		delete(j.open, e.Unit)
		if _, dup := j.units[e.Unit]; dup {
			return
		}
		j.units[e.Unit] = e
		j.order = append(j.order, e.Unit)
		j.spend.Units++
		j.spend.Tokens += e.Tokens
		j.spend.CostUSD += e.CostUSD
		j.spend.JudgeCalls += e.JudgeCalls
	}
}

// spent is what the journal records as spent, every judge-call
// reservation never settled counted at its reserved amount (replayed with
// nothing running, each was cut short by a kill or a cancel).
func (j *journal) spent() Spend {
	sp := j.spend
	n := j.lost
	for _, r := range j.open {
		n += r
	}
	sp.JudgeCalls += n
	sp.InterruptedJudgeCalls += n
	return sp
}

// journalWriter appends to the journal.
type journalWriter struct {
	mu   sync.Mutex
	f    *os.File
	sync bool
}

func openJournal(dir string, torn int64, sync bool) (*journalWriter, error) {
	path := filepath.Join(dir, JournalFile)
	if torn >= 0 {
		if err := os.Truncate(path, torn); err != nil {
			return nil, fmt.Errorf("experiment: repair the torn last line of %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, record.FilePerm)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	return &journalWriter{f: f, sync: sync}, nil
}

func (w *journalWriter) append(e journalEntry) error { return w.write(e, w.sync) }

// appendSynced appends e and syncs it to disk whatever the experiment's
// Fsync option: a judge-call reservation must outlive a power loss.
func (w *journalWriter) appendSynced(e journalEntry) error { return w.write(e, true) }

func (w *journalWriter) write(e journalEntry, sync bool) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("experiment: journal: %w", err)
	}
	if sync {
		return w.f.Sync()
	}
	return nil
}

func (w *journalWriter) close() error { return w.f.Close() }

// reserveLedger creates <runsRoot>/.experiments/<timestamp>-<id>[-N].
func reserveLedger(runsRoot, campaignID string, now time.Time) (string, error) {
	parent := filepath.Join(runsRoot, ExperimentsDir)
	if err := os.MkdirAll(parent, record.DirPerm); err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	base := record.Timestamp(now) + "-" + slug(campaignID)
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		dir := filepath.Join(parent, name)
		err := os.Mkdir(dir, record.DirPerm)
		if err == nil {
			for _, sub := range []string{CandidatesDir, UnitsDir} {
				if err := os.Mkdir(filepath.Join(dir, sub), record.DirPerm); err != nil {
					return "", fmt.Errorf("experiment: %w", err)
				}
			}
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("experiment: %w", err)
		}
	}
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

func slug(id string) string {
	s := unsafeChars.ReplaceAllString(id, "-")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// unitFile is the path of a unit's file.
func unitFile(dir, id string) string { return filepath.Join(dir, UnitsDir, id+".json") }

// encodeUnit returns the bytes of a unit file.
func encodeUnit(u *Unit) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(u); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readUnits reads every unit the journal lists as finished, checking each
// file against its recorded hash, on every CPU.
func readUnits(dir string, j *journal) ([]*Unit, error) {
	units := make([]*Unit, len(j.order))
	errs := make([]error, len(j.order))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(j.order)))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(j.order); i += workers {
				units[i], errs[i] = readUnit(dir, j.order[i], j.units[j.order[i]].Hash)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return units, nil
}

func readUnit(dir, id, hash string) (*Unit, error) {
	data, err := os.ReadFile(unitFile(dir, id))
	if err != nil {
		return nil, fmt.Errorf("experiment: unit %s is in the journal but its file cannot be read: %w", id, err)
	}
	if hashBytes(data) != hash {
		return nil, fmt.Errorf("experiment: %s does not match the hash the journal recorded for it: the unit file was changed after it was written", unitFile(dir, id))
	}
	u := &Unit{}
	if err := json.Unmarshal(data, u); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", unitFile(dir, id), err)
	}
	return u, nil
}

// adoptUnits journals the unit files written just before a crash (the
// file is written before its journal line) and removes the temporary files
// of writes the crash cut short.
func adoptUnits(dir string, j *journal, w *journalWriter) error {
	entries, err := os.ReadDir(filepath.Join(dir, UnitsDir))
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if strings.HasPrefix(e.Name(), ".") && e.Type().IsRegular() {
			// A temporary file of a write the crash cut short.
			_ = os.Remove(filepath.Join(dir, UnitsDir, e.Name()))
			continue
		}
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, done := j.units[id]; done {
			continue
		}
		data, err := os.ReadFile(unitFile(dir, id))
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		u := &Unit{}
		if json.Unmarshal(data, u) != nil || u.ID != id {
			_ = os.Remove(unitFile(dir, id)) // never finished: the unit runs again
			continue
		}
		entry := journalEntry{Kind: "unit", Unit: id, Hash: hashBytes(data), Tokens: u.Tokens, CostUSD: u.CostUSD, JudgeCalls: u.JudgeCalls}
		if err := w.append(entry); err != nil {
			return err
		}
		j.add(entry)
	}
	return nil
}

// readManifest reads dir's experiment.json.
func readManifest(dir string) (*Manifest, error) {
	m := &Manifest{}
	if err := record.ReadJSON(filepath.Join(dir, ManifestFile), m); err != nil {
		return nil, fmt.Errorf("experiment: %s is not an experiment ledger: %w", dir, err)
	}
	return m, nil
}

func readCandidate(dir string, ref CandidateRef) (*Candidate, error) {
	c := &Candidate{}
	path := filepath.Join(dir, CandidatesDir, ref.ID+".json")
	if err := record.ReadJSON(path, c); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if err := c.verify(); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	if c.Hash != ref.Hash || c.ID != ref.ID {
		return nil, fmt.Errorf("experiment: %s is not the candidate the manifest names (hash %s, want %s)", path, c.Hash, ref.Hash)
	}
	return c, nil
}
