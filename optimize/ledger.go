package optimize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
)

// The search ledger's layout under <RunsRoot>/.optimize/<stamp>-<id>/.
const (
	LedgerDir   = ".optimize"
	JournalFile = "journal.jsonl"
	// TreesDir holds each candidate's materialized subject tree; EvalsDir
	// each candidate's train experiment (its own runs root).
	TreesDir = "trees"
	EvalsDir = "evals"
)

// Entry is one line of the search journal. Kind is "start", "proposal"
// (a proposal call: its candidate, or its error or refusal), "evaluation"
// (a candidate's train result), "promoting" (the finalists) or "final"
// (the held-out experiment's ledger and decision).
type Entry struct {
	Kind string `json:"kind"`
	// Call numbers the proposal call (from 1).
	Call      int               `json:"call,omitempty"`
	Candidate string            `json:"candidate,omitempty"`
	Parent    string            `json:"parent,omitempty"`
	Rationale string            `json:"rationale,omitempty"`
	Files     map[string]string `json:"files,omitempty"`
	// Error is why the call failed or the proposal was refused (or a
	// duplicate of an existing candidate).
	Error   string         `json:"error,omitempty"`
	Usage   lux.TokenUsage `json:"usage,omitzero"`
	CostUSD float64        `json:"costUsd,omitempty"`
	// Cases are the candidate's train pass rates by "profile:case", Mean
	// their mean; Runs, Tokens and CostUSD (of an evaluation) what its
	// runs spent.
	Cases  map[string]float64 `json:"cases,omitempty"`
	Mean   float64            `json:"mean,omitempty"`
	Runs   int                `json:"runs,omitempty"`
	Tokens int64              `json:"tokens,omitempty"`
	// Ledger is the experiment ledger (evaluation, final).
	Ledger     string   `json:"ledger,omitempty"`
	Finalists  []string `json:"finalists,omitempty"`
	Decision   string   `json:"decision,omitempty"`
	Champion   string   `json:"champion,omitempty"`
	Campaign   string   `json:"campaign,omitempty"`
	CampaignID string   `json:"campaignId,omitempty"`
	// ElapsedMs is the search's active wall time when the entry was
	// written, over every segment.
	ElapsedMs int64     `json:"elapsedMs,omitempty"`
	At        time.Time `json:"at"`
}

// ReadJournal reads a search ledger's journal; a torn last line (the
// process killed mid-write) is dropped.
func ReadJournal(dir string) ([]Entry, error) {
	b, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if !bytes.HasSuffix(b, []byte("\n")) || len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue // the torn last line
			}
			return nil, fmt.Errorf("optimize: %s: %w", JournalFile, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

type journal struct{ f *os.File }

func openJournal(dir string) (*journal, error) {
	path := filepath.Join(dir, JournalFile)
	// Drop a torn last line so the next entry starts on its own line.
	if b, err := os.ReadFile(path); err == nil && len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		i := bytes.LastIndexByte(b, '\n')
		if err := os.Truncate(path, int64(i+1)); err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	return &journal{f: f}, nil
}

func (j *journal) add(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("optimize: journal: %w", err)
	}
	return j.f.Sync()
}

func (j *journal) close() error { return j.f.Close() }
