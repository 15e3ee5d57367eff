package luxtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/luxeval/lux"
)

// runStart is when every run NewRun makes started, so graders that read
// times see the same run every time.
var runStart = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// NewRun returns the evidence of a run, for testing assertions: a run
// directory under t.TempDir() whose workspace (<dir>/artifacts) holds files
// (slash-separated path to content), the events as its trajectory, and the
// files as its artifacts. Its Outcome: it ended done after one second of
// agent time (two in all), with no agent usage reported (Usage.Agent nil);
// change the returned value to grade something else.
func NewRun(t testing.TB, files map[string]string, events ...lux.Event) *lux.Run {
	t.Helper()
	run, err := newRun(t.TempDir(), files, events...)
	if err != nil {
		t.Fatalf("luxtest: NewRun: %v", err)
	}
	return run
}

func newRun(dir string, files map[string]string, events ...lux.Event) (*lux.Run, error) {
	workspace := filepath.Join(dir, "artifacts")
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	arts := make([]lux.Artifact, 0, len(paths))
	var size int64
	for _, p := range paths {
		if !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("file %q: want a slash-separated path inside the workspace", p)
		}
		full := filepath.Join(workspace, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		data := []byte(files[p])
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		arts = append(arts, lux.Artifact{Path: p, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
		size += int64(len(data))
	}
	agentEnd, end := runStart.Add(time.Second), runStart.Add(2*time.Second)
	o := &lux.Outcome{
		ExitReason: lux.ExitDone, StartedAt: runStart, AgentEndedAt: agentEnd, EndedAt: end,
		ArtifactCount: len(arts), ArtifactBytes: size,
	}
	return &lux.Run{
		Case:      &lux.Case{ID: "luxtest", Prompt: "a task for the agent"},
		Outcome:   o,
		Events:    events,
		Artifacts: arts,
		Dir:       dir,
		Workspace: workspace,
	}, nil
}
