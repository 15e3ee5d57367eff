package compare

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/internal/jsonerr"
	"github.com/luxeval/lux/record"
)

// Reading the sides of a suite comparison. A suite is read from its
// suite-summary.json, streamed one sample at a time (its per-case
// summaries are skipped, and no run directory is opened); a suite without
// a summary (cancelled hard, or still running) from suite.json and each
// run's run.json and grading.json, one run at a time; a set of runs from
// each run's run.json, grading.json and case.json. Events are never read.

// checkEvery is how many runs are read between two checks of the context.
const checkEvery = 256

// readSuiteDir adds the runs of the suite directory dir to sd.
func readSuiteDir(ctx context.Context, dir string, sd *side) error {
	kind, err := DirKind(dir)
	if err != nil {
		return err
	}
	if kind != KindSuite {
		return fmt.Errorf("%w: %s is a run directory, not a suite directory; compare it with another run (compare.Runs) or list run directories (compare.RunSets)", ErrKindMismatch, dir)
	}
	sd.info.Dir = dir
	// The suite's files are read as sealed, or not at all.
	if _, err := record.VerifySeal(dir); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	path := filepath.Join(dir, record.SuiteSummaryFile)
	found, err := streamSummary(ctx, path, sd, func(s *record.Sample) error {
		return sd.add(s, suiteRunDir(dir, s.RunDir))
	})
	if err != nil || found {
		return err
	}
	var m record.SuiteManifest
	if err := record.ReadJSON(filepath.Join(dir, record.SuiteFile), &m); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return addManifest(ctx, dir, &m, sd)
}

// suiteRunDir resolves a sample's run directory against its suite's.
func suiteRunDir(suiteDir, runDir string) string {
	switch {
	case runDir == "":
		return ""
	case filepath.IsAbs(runDir):
		return runDir
	case suiteDir == "":
		return ""
	}
	return filepath.Join(suiteDir, filepath.FromSlash(runDir))
}

// addSuiteRecord adds the runs of a suite already read.
func addSuiteRecord(ctx context.Context, s *record.Suite, sd *side) error {
	sd.info.Dir = s.Dir
	if s.Summary != nil {
		sd.info.SuiteID, sd.info.Status = s.Summary.SuiteID, s.Summary.Status
		sd.info.Attempts, sd.info.Pending = s.Summary.Totals.Attempts, s.Summary.Totals.Pending
		for i := range s.Summary.Samples {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("compare: %w", err)
				}
			}
			sm := &s.Summary.Samples[i]
			if err := sd.add(sm, suiteRunDir(s.Dir, sm.RunDir)); err != nil {
				return err
			}
		}
		return nil
	}
	if s.Manifest == nil {
		return fmt.Errorf("compare: suite %s has neither a summary nor a manifest", s.Dir)
	}
	return addManifest(ctx, s.Dir, s.Manifest, sd)
}

// addManifest adds the completed items of a suite without a summary,
// reading each run's run.json and grading.json in turn.
func addManifest(ctx context.Context, dir string, m *record.SuiteManifest, sd *side) error {
	sd.info.SuiteID, sd.info.Status = m.SuiteID, m.Status
	sd.info.Attempts = len(m.Items)
	for i, it := range m.Items {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("compare: %w", err)
			}
		}
		if it.Status != record.ItemCompleted {
			sd.info.Pending++
			continue
		}
		s := record.Sample{
			Index: i, CaseID: it.CaseID, Repetition: it.Repetition, Cluster: it.Cluster, RunDir: it.RunDir,
			ExitReason: it.ExitReason, Passed: it.Passed, Score: it.Score, RunVerdict: it.Verdict(),
		}
		runDir := suiteRunDir(dir, it.RunDir)
		if runDir != "" {
			meta, g, err := record.ReadMetadata(runDir)
			if err != nil {
				return fmt.Errorf("compare: suite %s, item %d (%s): %w", dir, i, it.CaseID, err)
			}
			s.IdentityHash, s.Metrics = record.IdentityHash(meta), record.RunMetrics(meta)
			if g != nil {
				s.Passed, s.Score = g.Passed, g.Score
			}
		}
		if err := sd.add(&s, runDir); err != nil {
			return err
		}
	}
	return nil
}

// readRunDirs adds the runs of the run directories dirs to sd.
func readRunDirs(ctx context.Context, dirs []string, sd *side) error {
	for i, dir := range dirs {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("compare: %w", err)
			}
		}
		kind, err := DirKind(dir)
		if err != nil {
			return err
		}
		if kind != KindRun {
			return fmt.Errorf("%w: %s is a suite directory, not a run directory; compare suites with compare.Suites", ErrKindMismatch, dir)
		}
		meta, g, err := record.ReadMetadata(dir)
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		c, err := readCase(dir)
		if err != nil {
			return err
		}
		s := record.Sample{
			CaseID: meta.CaseID, Repetition: meta.Repetition, ExitReason: meta.ExitReason,
			IdentityHash: record.IdentityHash(meta), Metrics: record.RunMetrics(meta),
		}
		if c != nil {
			s.Cluster = c.Cluster
		}
		if g != nil {
			s.Passed, s.Score = g.Passed, g.Score
		}
		s.RunVerdict = record.RunVerdict(meta, g)
		if err := sd.add(&s, dir); err != nil {
			return err
		}
	}
	return nil
}

// readCase reads a run's case.json; nil when it has none.
func readCase(dir string) (*record.CaseRecord, error) {
	c, err := record.ReadCase(dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	return c, nil
}

// loadIdentity reads what explains a run's identity: run.json and case.json.
func loadIdentity(dir string) (*record.Metadata, *record.CaseRecord, error) {
	if dir == "" {
		return nil, nil, errors.New("the run's directory is not known")
	}
	meta, _, err := record.ReadMetadata(dir)
	if err != nil {
		return nil, nil, err
	}
	c, err := readCase(dir)
	if err != nil {
		return nil, nil, err
	}
	return meta, c, nil
}

// unreadable says why a run's identity could not be read: the file and
// what is wrong with it, or the error as it is.
func unreadable(err error) string {
	var fe *record.FileError
	if errors.As(err, &fe) {
		return fe.Path + ": " + fe.Err.Error()
	}
	return err.Error()
}

// streamSummary decodes the suite summary at path one sample at a time,
// calling add for each and recording the suite's totals in sd. found is
// false when there is no summary, or when it has no samples.
func streamSummary(ctx context.Context, path string, sd *side, add func(*record.Sample) error) (found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("compare: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	bad := func(where string, err error) error {
		if errors.Is(err, ErrCorrupt) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("compare: %w", ctx.Err())
		}
		p := jsonProblem(err, dec.InputOffset())
		if where != "" && !isSyntax(err) {
			p = where + ": " + p
		}
		return fmt.Errorf("compare: %s: %s", path, p)
	}
	if err := expectDelim(dec, '{', "the summary must be a JSON object"); err != nil {
		return false, bad("", err)
	}
	var totals record.Outcome
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, bad("", err)
		}
		key, _ := tok.(string)
		where := key
		switch key {
		case "suiteId":
			err = dec.Decode(&sd.info.SuiteID)
		case "status":
			err = dec.Decode(&sd.info.Status)
		case "totals":
			err = dec.Decode(&totals)
		case "samples":
			found = true
			var n int
			n, err = streamSamples(ctx, dec, add)
			if n >= 0 {
				where = fmt.Sprintf("samples[%d]", n)
			}
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return false, bad(where, err)
		}
	}
	if err := expectDelim(dec, '}', "the summary must end with }"); err != nil {
		return false, bad("", err)
	}
	if found {
		sd.info.Attempts, sd.info.Pending = totals.Attempts, totals.Pending
	}
	return found, nil
}

// streamSamples decodes the array of samples, reusing one Sample. On an
// error in a sample it returns that sample's index, else -1.
func streamSamples(ctx context.Context, dec *json.Decoder, add func(*record.Sample) error) (int, error) {
	if err := expectDelim(dec, '[', "must be a list"); err != nil {
		return -1, err
	}
	var s record.Sample
	for n := 0; dec.More(); n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return -1, err
			}
		}
		m := s.Metrics
		clear(m)
		s = record.Sample{Metrics: m}
		if err := dec.Decode(&s); err != nil {
			return n, err
		}
		if err := add(&s); err != nil {
			return n, err
		}
	}
	return -1, expectDelim(dec, ']', "must be a list")
}

// skipValue consumes the next value, one element at a time for arrays
// and objects so that a large one is never buffered whole.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if err := dec.Decode(&raw); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		for dec.More() {
			if _, err := dec.Token(); err != nil {
				return err
			}
			if err := dec.Decode(&raw); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token()
	return err
}

// expectDelim reads the next token and requires it to be d.
func expectDelim(dec *json.Decoder, d json.Delim, problem string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return errors.New(problem)
	}
	return nil
}

func isSyntax(err error) bool {
	k := jsonerr.Of(err).Kind
	return k == jsonerr.Syntax || k == jsonerr.Truncated
}

// jsonProblem says what is wrong with a JSON file, the way package record
// does: empty, truncated, corrupt at a byte, or of the wrong shape.
func jsonProblem(err error, offset int64) string {
	p := jsonerr.Of(err)
	switch {
	case errors.Is(err, io.EOF) && offset == 0:
		return "empty file"
	case p.Kind == jsonerr.Truncated:
		return fmt.Sprintf("truncated JSON (ends after %d bytes)", offset)
	case p.Kind == jsonerr.Syntax:
		// A json.Decoder's SyntaxError offsets do not count from the start
		// of the file; offset is where the value that failed begins.
		return fmt.Sprintf("corrupt JSON in the value at byte %d: %s", offset, p.Text)
	}
	return p.Text
}
