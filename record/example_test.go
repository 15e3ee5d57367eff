package record_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// A run record is written with the helpers of this package and read back
// with ReadRun.
func Example() {
	root, _ := os.MkdirTemp("", "lux-runs-")
	defer os.RemoveAll(root)

	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	dir, _ := record.ReserveRunDir(root, "greet/hello", "subprocess", start)
	meta := &record.Metadata{
		SchemaVersion: record.SchemaVersion, CaseID: "greet/hello", StartedAt: start,
		EndedAt: start.Add(1500 * time.Millisecond), ExitReason: lux.ExitDone,
	}
	passed, score := true, 1.0
	_ = record.WriteJSON(filepath.Join(dir, record.MetadataFile), meta)
	_ = record.WriteJSON(filepath.Join(dir, record.GradingFile), &record.Grading{Passed: &passed, Score: &score})

	rel, _ := filepath.Rel(root, dir)
	fmt.Println(filepath.ToSlash(rel))
	run, err := record.ReadRun(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Metadata.CaseID, run.Metadata.ExitReason, run.Metadata.Duration(), run.Verdict())
	// Output:
	// greet/hello/subprocess/2025-01-02T03-04-05-000Z
	// greet/hello done 1.5s pass
}
