package labels_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/labels"
	"github.com/luxeval/lux/record"
)

// writeRun records a minimal run of caseID under root and returns its
// directory.
func writeRun(t *testing.T, root, caseID, runID string) string {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dir, err := record.ReserveRunDir(root, caseID, "subprocess", start)
	if err != nil {
		t.Fatal(err)
	}
	meta := &record.Metadata{SchemaVersion: record.SchemaVersion, RunID: runID, CaseID: caseID,
		StartedAt: start, EndedAt: start.Add(time.Second), ExitReason: lux.ExitDone,
		Evidence: &record.Evidence{EventsSHA256: strings.Repeat("a", 64), EventsBytes: 10, ArtifactsHash: strings.Repeat("b", 64)}}
	if err := record.WriteJSON(filepath.Join(dir, record.MetadataFile), meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ptr[T any](v T) *T { return &v }

func TestRoundTrip(t *testing.T) {
	root := t.TempDir()
	run := writeRun(t, filepath.Join(root, ".lux-runs"), "greet/hello", "run-1")
	dataset := filepath.Join(root, "labels", "hello.json")
	if err := os.MkdirAll(filepath.Dir(dataset), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := labels.ForRun(dataset, run, "ada")
	if err != nil {
		t.Fatal(err)
	}
	if want := "../.lux-runs/greet/hello/subprocess/" + filepath.Base(run); l.Run != want {
		t.Errorf("Run = %q, want %q (relative to the dataset's directory, '/'-separated)", l.Run, want)
	}
	if labels.RunDir(dataset, l) != filepath.Clean(run) {
		t.Errorf("RunDir = %s, want %s", labels.RunDir(dataset, l), run)
	}
	l.Tags = []string{"train", "login"}
	l.LabeledAt = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	l.Feedback = "the tests pass but the README was not updated"
	l.Expected = labels.Expected{Passed: ptr(false), Score: ptr(0.4),
		Assertions: map[string]labels.AssertionLabel{"tests-pass": {Passed: true, Score: ptr(1.0)}, "readme": {Passed: false}}}
	if replaced, err := labels.Upsert(dataset, l); err != nil || replaced {
		t.Fatalf("Upsert = %v, %v; want a new label", replaced, err)
	}
	d, err := labels.Load(dataset)
	if err != nil {
		t.Fatal(err)
	}
	want := &labels.Dataset{SchemaVersion: labels.SchemaVersion, Labels: []labels.Label{l}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	// The same id for the same run replaces the label.
	l.Feedback = "on second thought"
	if replaced, err := labels.Upsert(dataset, l); err != nil || !replaced {
		t.Fatalf("Upsert again = %v, %v; want the label replaced", replaced, err)
	}
	d, _ = labels.Load(dataset)
	if len(d.Labels) != 1 || d.Labels[0].Feedback != "on second thought" {
		t.Errorf("after relabelling: %+v", d.Labels)
	}
}

func TestRelabelAnotherRunRefused(t *testing.T) {
	root := t.TempDir()
	dataset := filepath.Join(root, "labels.json")
	a := writeRun(t, root, "c", "run-a")
	b := writeRun(t, filepath.Join(root, "other"), "c", "run-b")
	la, _ := labels.ForRun(dataset, a, "")
	la.Expected.Passed, la.LabeledAt = ptr(true), time.Now()
	if _, err := labels.Upsert(dataset, la); err != nil {
		t.Fatal(err)
	}
	lb, _ := labels.ForRun(dataset, b, "")
	lb.ID = la.ID
	lb.Expected.Passed, lb.LabeledAt = ptr(false), time.Now()
	_, err := labels.Upsert(dataset, lb)
	if !errors.Is(err, labels.ErrRelabel) {
		t.Fatalf("relabelling id %q for another run: err = %v, want ErrRelabel", la.ID, err)
	}
	d, _ := labels.Load(dataset)
	if len(d.Labels) != 1 || *d.Labels[0].Expected.Passed != true {
		t.Errorf("the refused label changed the dataset: %+v", d.Labels)
	}
}

const goodLabel = `{"id": "a", "run": "runs/a", "caseId": "c", "runId": "r", "tags": [], "expected": {"casePassed": true}, "source": "human", "labeledAt": "2026-01-01T00:00:00Z"}`

func TestLoadRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string // each must appear in the error
	}{
		{"unknown top-level field", `{"schemaVersion": 1, "labels": [], "lables": []}`, []string{"lables: unknown field"}},
		{"unknown nested field", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"casePassed": true`, `"casePassed": true, "casePased": false`, 1) + `]}`,
			[]string{"labels[0].expected.casePased: unknown field"}},
		{"unknown assertion field", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"casePassed": true`, `"assertions": {"x": {"passed": true, "scor": 1}}`, 1) + `]}`,
			[]string{"labels[0].expected.assertions.x.scor: unknown field"}},
		{"wrong type", `{"schemaVersion": "1", "labels": []}`, []string{"schemaVersion"}},
		{"schema version", `{"schemaVersion": 2, "labels": []}`, []string{"schemaVersion: is 2"}},
		{"not JSON", `{"schemaVersion": 1,`, []string{"not valid JSON"}},
		{"duplicate ids", `{"schemaVersion": 1, "labels": [` + goodLabel + `,` + goodLabel + `]}`, []string{`labels[1].id: duplicate id "a"`}},
		{"unsorted ids", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"id": "a"`, `"id": "b"`, 1) + `,` + goodLabel + `]}`,
			[]string{`labels[1].id: "a" comes after "b"`}},
		{"absolute run", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"runs/a"`, `"/abs/a"`, 1) + `]}`, []string{"labels[0].run:"}},
		{"unclean run", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"runs/a"`, `"runs/../a"`, 1) + `]}`, []string{"labels[0].run:"}},
		{"backslash run", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"runs/a"`, `"runs\\a"`, 1) + `]}`, []string{"labels[0].run:"}},
		{"nothing labelled", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"casePassed": true`, ``, 1) + `]}`, []string{"labels[0].expected: labels nothing"}},
		{"score range", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"casePassed": true`, `"caseScore": 1.5, "assertions": {"x": {"passed": true, "score": -1}}`, 1) + `]}`,
			[]string{"labels[0].expected.caseScore: is 1.5", "labels[0].expected.assertions.x.score: is -1"}},
		{"source", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"human"`, `"robot"`, 1) + `]}`, []string{"labels[0].source"}},
		{"duplicate tag", `{"schemaVersion": 1, "labels": [` + strings.Replace(goodLabel, `"tags": []`, `"tags": ["a", "a"]`, 1) + `]}`, []string{`labels[0].tags[1]: duplicate tag "a"`}},
		{"missing fields", `{"schemaVersion": 1, "labels": [{"id": "a", "expected": {"casePassed": true}}]}`,
			[]string{"labels[0].run: required", "labels[0].caseId: required", "labels[0].runId: required", "labels[0].labeledAt: required", "labels[0].source"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := labels.Parse("d.json", []byte(tc.data))
			if !errors.Is(err, labels.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
	if _, err := labels.Parse("d.json", []byte(`{"schemaVersion": 1, "labels": [`+goodLabel+`]}`)); err != nil {
		t.Errorf("a good dataset is refused: %v", err)
	}
}

func TestUpsertRefusesInvalidLabel(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "d.json")
	_, err := labels.Upsert(dataset, labels.Label{ID: "x y", Run: "r", CaseID: "c", RunID: "r", Source: "human", LabeledAt: time.Now()})
	if !errors.Is(err, labels.ErrInvalid) || !strings.Contains(err.Error(), "id:") || !strings.Contains(err.Error(), "expected:") {
		t.Fatalf("err = %v, want ErrInvalid naming id and expected", err)
	}
	if _, err := os.Stat(dataset); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused label created the dataset: %v", err)
	}
}
