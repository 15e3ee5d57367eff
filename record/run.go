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
	"strings"

	"github.com/luxeval/lux"
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

// Run is one run record read back from disk.
type Run struct {
	Dir       string
	Case      *CaseRecord
	Metadata  *lux.RunMetadata
	Grading   *lux.GradingReport // nil when grading.json is absent
	Artifacts []lux.Artifact
	// Events is nil until LoadEvents (or ReadRun with Events set).
	Events []lux.Event
}

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
	meta, grading, err := ReadMetadata(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Metadata: meta, Grading: grading}
	var c CaseRecord
	if ok, err := readJSONOptional(filepath.Join(dir, CaseFile), &c); err != nil {
		return nil, err
	} else if ok {
		c.Path = c.CasePath
		r.Case = &c
	}
	if _, err := readJSONOptional(filepath.Join(dir, ArtifactsFile), &r.Artifacts); err != nil {
		return nil, err
	}
	if o.Events {
		if err := r.LoadEvents(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ReadMetadata reads only run.json and grading.json (nil when absent) of
// the run directory dir: the cheapest read, for scanning many runs.
func ReadMetadata(dir string) (*lux.RunMetadata, *lux.GradingReport, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("record: read run: %w", err)
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("record: %s is not a run directory: not a directory", dir)
	}
	var meta lux.RunMetadata
	ok, err := readJSONOptional(filepath.Join(dir, MetadataFile), &meta)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("record: %s is not a run directory: it has no %s", dir, MetadataFile)
	}
	var g lux.GradingReport
	ok, err = readJSONOptional(filepath.Join(dir, GradingFile), &g)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return &meta, nil, nil
	}
	return &meta, &g, nil
}

// LoadEvents reads the run's events.jsonl into r.Events. A missing file
// means no events.
func (r *Run) LoadEvents() error {
	events, err := ReadEvents(filepath.Join(r.Dir, EventsFile))
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
		Case: c, Metadata: r.Metadata, Events: r.Events, Artifacts: r.Artifacts,
		Dir: r.Dir, Workspace: filepath.Join(r.Dir, ArtifactsDir),
	}
}

// ReadJSON decodes the JSON file at path into v, ignoring unknown fields.
// Errors name the path and say whether the file is missing, truncated,
// corrupt or of the wrong shape.
func ReadJSON(path string, v any) error {
	ok, err := readJSONOptional(path, v)
	if err == nil && !ok {
		return fmt.Errorf("record: %s: %w", path, fs.ErrNotExist)
	}
	return err
}

// readJSONOptional decodes path into v; a missing file reports false.
func readJSONOptional(path string, v any) (bool, error) {
	data, ok, err := readCapped(path)
	if !ok || err != nil {
		return ok, err
	}
	if err := decodeJSON(data, v); err != nil {
		return false, fmt.Errorf("record: %s: %w", path, err)
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
		return nil, false, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJSONFile+1))
	if err != nil {
		return nil, false, fmt.Errorf("record: read %s: %w", path, err)
	}
	if len(data) > maxJSONFile {
		return nil, false, fmt.Errorf("record: %s: larger than %d bytes", path, maxJSONFile)
	}
	return data, true, nil
}

func decodeJSON(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty file")
	}
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end"):
		return fmt.Errorf("truncated JSON (ends after %d bytes)", len(data))
	case errors.As(err, &syn):
		return fmt.Errorf("corrupt JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the top level"
		}
		return fmt.Errorf("%s must be %s, got JSON %s", field, typ.Type, typ.Value)
	default:
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
}
