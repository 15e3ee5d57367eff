package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/luxeval/lux"
)

// GradingsDir holds a run's later gradings; grading.json is never rewritten.
const GradingsDir = "gradings"

// Regrading is gradings/<timestamp>[-N].json: a run graded again, after
// the fact, with the assertions and plugins of that time.
type Regrading struct {
	SchemaVersion int       `json:"schemaVersion"`
	LuxVersion    string    `json:"luxVersion"`
	GradedAt      time.Time `json:"gradedAt"`
	// CaseHash and AssertionsHash identify the case graded (they differ
	// from the run's provenance when the case was replaced).
	CaseHash       string `json:"caseHash"`
	AssertionsHash string `json:"assertionsHash"`
	// EvaluatorConfigHash identifies the graders of this grading; the
	// run's own is in its provenance.
	EvaluatorConfigHash string `json:"evaluatorConfigHash"`
	// EvidenceVerified says the run's evidence was checked against its
	// fingerprint before grading; false for a record made before
	// fingerprints existed.
	EvidenceVerified bool `json:"evidenceVerified"`
	// RecordSeal is what the record's seal showed before grading:
	// "verified", or "unsealed" for a record made before sealing.
	RecordSeal SealState `json:"recordSeal,omitempty"`
	Report     *Grading  `json:"report"`
	// JudgeUsage is what the model-graded assertions of this grading spent.
	JudgeUsage lux.ModelUsage `json:"judgeUsage"`
}

// WriteRegrading stores g under <runDir>/gradings with a fresh name and
// returns its path. Existing gradings are never replaced, and the new one
// appears whole or not at all.
func (w Writer) WriteRegrading(runDir string, g *Regrading) (string, error) {
	dir := filepath.Join(runDir, GradingsDir)
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	stamp := Timestamp(g.GradedAt)
	var buf bytes.Buffer
	if err := encode(&buf, g, "  "); err != nil {
		return "", fmt.Errorf("record: encode %s: %w", filepath.Join(dir, stamp+".json"), err)
	}
	tmp, err := w.writeTemp(filepath.Join(dir, stamp+".json"), buf.Bytes())
	if err != nil {
		return "", fmt.Errorf("record: write a grading under %s: %w", dir, err)
	}
	path, err := publish(tmp, func(n int) string {
		if n == 1 {
			return filepath.Join(dir, stamp+".json")
		}
		return filepath.Join(dir, fmt.Sprintf("%s-%d.json", stamp, n))
	})
	if err != nil {
		return "", fmt.Errorf("record: write a grading under %s: %w", dir, err)
	}
	return path, nil
}

// WriteRegradingSealed is WriteRegrading for a sealed run: the new grading
// joins the run's seal (see Writer.WriteSealed), so the record verifies
// whenever a crash stops it. One writer at a time per run.
func (w Writer) WriteRegradingSealed(runDir string, g *Regrading, key *SealKey) (string, error) {
	dir := filepath.Join(runDir, GradingsDir)
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	stamp := Timestamp(g.GradedAt)
	var buf bytes.Buffer
	if err := encode(&buf, g, "  "); err != nil {
		return "", fmt.Errorf("record: encode %s: %w", filepath.Join(dir, stamp+".json"), err)
	}
	for n := 1; n < 10000; n++ {
		name := stamp + ".json"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.json", stamp, n)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			continue
		}
		if err := w.WriteSealed(runDir, "run", key, GradingsDir+"/"+name, buf.Bytes()); err != nil {
			return "", fmt.Errorf("record: write a grading under %s: %w", dir, err)
		}
		return filepath.Join(dir, name), nil
	}
	return "", fmt.Errorf("record: write a grading under %s: no free name", dir)
}

// ReadRegradings returns the later gradings of the run in runDir, oldest
// first (none when it has none).
func ReadRegradings(runDir string) ([]*Regrading, error) {
	dir := filepath.Join(runDir, GradingsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".json") && IsStampName(strings.TrimSuffix(n, ".json")) {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, CompareStampNames)
	sc, err := openSeal(runDir)
	if err != nil {
		return nil, err
	}
	if sc.seal != nil {
		for n := range sc.seal.Files {
			if strings.HasPrefix(n, GradingsDir+"/") && !slices.Contains(names, strings.TrimPrefix(n, GradingsDir+"/")) {
				return nil, sc.broken(n, "was removed")
			}
		}
	}
	out := make([]*Regrading, 0, len(names))
	for _, n := range names {
		var g Regrading
		if ok, err := sc.readJSON(GradingsDir+"/"+n, &g); err != nil {
			return nil, err
		} else if !ok {
			continue // removed while listed
		}
		out = append(out, &g)
	}
	return out, nil
}
