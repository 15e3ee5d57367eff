package temporal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/record"
)

// Store is where workers record runs and where the client reads them, in
// the runs root's layout (see package record), so that lux view,
// compare, report and resume read a distributed suite as a local one.
type Store interface {
	// Root is the runs root the worker records under.
	Root() string
	// Publish makes the run recorded under Root at runID (relative)
	// readable by the client, or says why it cannot.
	Publish(ctx context.Context, runID string) error
}

// SharedDir is a Store on a directory every worker and the client mount
// at the same path (NFS or similar): a run recorded there is published.
type SharedDir string

// Root returns the directory.
func (d SharedDir) Root() string {
	if abs, err := filepath.Abs(string(d)); err == nil {
		return abs
	}
	return string(d)
}

// Publish checks that the run's run.json is readable in the directory.
func (d SharedDir) Publish(ctx context.Context, runID string) error {
	if _, err := os.Stat(filepath.Join(d.Root(), filepath.FromSlash(runID), record.MetadataFile)); err != nil {
		return fmt.Errorf("temporal: the shared runs root %s: %w", d.Root(), err)
	}
	return nil
}
