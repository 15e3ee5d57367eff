package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/jsonerr"
)

// maxJSONFile caps the size of one JSON file of a record that a reader
// accepts, so a damaged record cannot exhaust memory.
const maxJSONFile = 64 << 20

// CaseRecord is case.json: the case as authored, and the file it came from.
type CaseRecord struct {
	lux.Case
	// CasePath is the file the case was loaded from ("" for an inline case).
	CasePath string `json:"casePath,omitempty"`
}

// UnmarshalJSON reads case.json. A case's plugin references decode
// strictly when a case is loaded; in a record, as everywhere in one, the
// fields this version does not know are ignored.
func (c *CaseRecord) UnmarshalJSON(data []byte) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		changed := false
		for _, k := range []string{"driver", "answerer"} {
			var ref map[string]json.RawMessage
			if json.Unmarshal(top[k], &ref) != nil {
				continue // absent, a bare name, or reported by the decoding below
			}
			known := map[string]json.RawMessage{}
			for _, f := range []string{"name", "config"} {
				if v, ok := ref[f]; ok {
					known[f] = v
				}
			}
			if len(known) != len(ref) {
				top[k], _ = json.Marshal(known)
				changed = true
			}
		}
		if changed {
			data, _ = json.Marshal(top)
		}
	}
	type plain CaseRecord
	return json.Unmarshal(data, (*plain)(c))
}

// Run is a finished run: its record as the orchestrator returns it once
// the run is recorded, or as ReadRun reads it back from disk.
type Run struct {
	Dir       string
	Case      *CaseRecord
	Metadata  *Metadata
	Grading   *Grading // nil when grading.json is absent
	Artifacts []lux.Artifact
	// Events is nil until LoadEvents (or ReadRun with Events set).
	Events []lux.Event
	// Seal says whether the files read were checked against the record's
	// seal (SealVerified) or the record predates sealing (SealUnsealed);
	// empty for a run the orchestrator has just recorded (nothing was read
	// back).
	Seal SealState
	// Failure is why the harness failed the run, when it did (an answerer
	// error, an answer that did not match, no answerer, a cancelled
	// context, ...), as the orchestrator that ran it saw it: an error to
	// match with errors.Is. run.json holds only its text; nil for a run
	// read from disk.
	Failure error
}

// Verdict is the run's verdict: RunVerdict of its run.json and
// grading.json.
func (r *Run) Verdict() Verdict { return RunVerdict(r.Metadata, r.Grading) }

// ReadOptions chooses what ReadRun loads. The zero value loads everything
// but the events.
type ReadOptions struct {
	Events bool // also load events.jsonl
}

// ReadRun reads the run directory dir: run.json (required), case.json,
// grading.json and artifacts.json (each optional: a run that failed early
// may lack them), and events.jsonl when opts asks for it. Errors name the
// file and the problem; a directory without run.json is reported as not a
// run directory.
func ReadRun(dir string, opts ...ReadOptions) (*Run, error) {
	var o ReadOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	meta, grading, sc, err := readMetadata(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Metadata: meta, Grading: grading, Seal: sc.state()}
	var c CaseRecord
	if ok, err := sc.readJSON(CaseFile, &c); err != nil {
		return nil, err
	} else if ok {
		c.Path = c.CasePath
		r.Case = &c
	}
	if _, err := sc.readJSON(ArtifactsFile, &r.Artifacts); err != nil {
		return nil, err
	}
	if o.Events {
		if err := r.LoadEvents(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ReadCase reads the case.json of the run directory dir, checked against
// the run's seal; nil when it has none.
func ReadCase(dir string) (*CaseRecord, error) {
	sc, err := openSeal(dir)
	if err != nil {
		return nil, err
	}
	var c CaseRecord
	if ok, err := sc.readJSON(CaseFile, &c); err != nil || !ok {
		return nil, err
	}
	c.Path = c.CasePath
	return &c, nil
}

// ReadMetadata reads only run.json and grading.json (nil when absent) of
// the run directory dir: the cheapest read, for scanning many runs. Both
// are checked against the run's seal (see VerifySeal): a file changed
// since is an error wrapping ErrSealBroken.
func ReadMetadata(dir string) (*Metadata, *Grading, error) {
	meta, g, _, err := readMetadata(dir)
	return meta, g, err
}

func readMetadata(dir string) (*Metadata, *Grading, *sealCheck, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, nil, &FileError{Path: dir, Err: pathProblem(err)}
	}
	if !fi.IsDir() {
		return nil, nil, nil, fmt.Errorf("record: %s is not a run directory: not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, MetadataFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, fmt.Errorf("record: %s is not a run directory: it has no %s", dir, MetadataFile)
	}
	sc, err := openSeal(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	var meta Metadata
	ok, err := sc.readJSON(MetadataFile, &meta)
	if err != nil {
		return nil, nil, nil, err
	}
	if !ok {
		return nil, nil, nil, fmt.Errorf("record: %s is not a run directory: it has no %s", dir, MetadataFile)
	}
	complete := meta.Evidence != nil
	if err := sc.unsealedErr(&complete); err != nil {
		return nil, nil, nil, err
	}
	if sc.seal != nil {
		if err := checkPlace(dir, "run", meta.RunID); err != nil {
			return nil, nil, nil, err
		}
	}
	var g Grading
	ok, err = sc.readJSON(GradingFile, &g)
	if err != nil {
		return nil, nil, nil, err
	}
	if !ok {
		return &meta, nil, sc, nil
	}
	return &meta, &g, sc, nil
}

// LoadEvents reads the run's events.jsonl into r.Events. A missing file
// means no events.
func (r *Run) LoadEvents() error {
	path := filepath.Join(r.Dir, EventsFile)
	// The events are read as sealed, whether or not the run was read
	// from disk by ReadRun.
	sc, err := openSeal(r.Dir)
	if err != nil {
		return err
	}
	if sc.seal != nil {
		sum, err := fileSHA256(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &FileError{Path: path, Err: pathProblem(err)}
		}
		if err := sc.checkSum(EventsFile, sum); err != nil {
			return err
		}
	}
	events, err := ReadEvents(path)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		r.Events = []lux.Event{}
		return nil
	}
	if err != nil {
		return err
	}
	if events == nil {
		events = []lux.Event{}
	}
	r.Events = events
	return nil
}

// Evidence returns the run as assertions see it (events must be loaded
// for assertions over the trajectory).
func (r *Run) Evidence() *lux.Run {
	var c *lux.Case
	if r.Case != nil {
		cc := r.Case.Case
		c = &cc
	}
	return &lux.Run{
		Case: c, Repetition: r.Metadata.Repetition, Outcome: r.Metadata.Outcome(), Events: r.Events, Artifacts: r.Artifacts,
		Dir: r.Dir, Workspace: filepath.Join(r.Dir, ArtifactsDir),
	}
}

// ReadJSON decodes the JSON file at path into v, ignoring unknown fields.
// Errors name the path and say whether the file is missing, truncated,
// corrupt or of the wrong shape.
func ReadJSON(path string, v any) error {
	ok, err := readJSONOptional(path, v)
	if err == nil && !ok {
		return &FileError{Path: path, Err: fs.ErrNotExist}
	}
	return err
}

// FileError is a record file that cannot be read: which file, and what is
// wrong with it (missing, unreadable, too large, empty, truncated, corrupt
// at a byte, or of the wrong shape). Its text reads "record:
// runs/x/run.json: truncated JSON (ends after 12 bytes)".
type FileError struct {
	Path string
	Err  error // what is wrong; fs.ErrNotExist for a missing file
}

func (e *FileError) Error() string { return "record: " + e.Path + ": " + e.Err.Error() }

// Unwrap returns what is wrong.
func (e *FileError) Unwrap() error { return e.Err }

// readJSONOptional decodes path into v; a missing file reports false.
func readJSONOptional(path string, v any) (bool, error) {
	data, ok, err := readCapped(path)
	if !ok || err != nil {
		return ok, err
	}
	if err := decodeJSON(data, v); err != nil {
		return false, &FileError{Path: path, Err: err}
	}
	return true, nil
}

// readCapped reads path whole, up to maxJSONFile bytes; a missing file
// reports false.
func readCapped(path string) ([]byte, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &FileError{Path: path, Err: pathProblem(err)}
	}
	defer f.Close()
	data, err := readSized(f, maxJSONFile+1)
	if err != nil {
		return nil, false, &FileError{Path: path, Err: pathProblem(err)}
	}
	if len(data) > maxJSONFile {
		return nil, false, &FileError{Path: path, Err: fmt.Errorf("larger than %d bytes", maxJSONFile)}
	}
	return data, true, nil
}

// readSized reads f to its end, at most limit bytes, into a buffer sized
// from its length (io.ReadAll grows one from 512 bytes, leaving garbage
// several times the file's size; readers of many records feel it).
func readSized(f *os.File, limit int64) ([]byte, error) {
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = fi.Size() + 1 // + 1: the end of the file is seen without growing
	}
	size = min(size, limit)
	data := make([]byte, 0, size)
	r := io.LimitReader(f, limit)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			if int64(len(data)) >= limit {
				return data, nil
			}
			data = append(data, 0)[:len(data)] // the file grew: let append pick the room
		}
	}
}

// pathProblem is err without the path a *fs.PathError repeats: "open:
// permission denied".
func pathProblem(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func decodeJSON(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty file")
	}
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	p := jsonerr.Of(err)
	switch p.Kind {
	case jsonerr.Truncated:
		return fmt.Errorf("truncated JSON (ends after %d bytes)", len(data))
	case jsonerr.Syntax:
		return fmt.Errorf("corrupt JSON at byte %d: %s", p.Offset, p.Text)
	case jsonerr.Type:
		if p.Field == "" {
			return fmt.Errorf("the top level must be %s, got JSON %s", p.Want, p.Got)
		}
	}
	return errors.New(p.Text)
}
