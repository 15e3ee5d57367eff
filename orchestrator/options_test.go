package orchestrator

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRunsRootIsMadeAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	o := New(nil, Options{RunsRoot: "records"})
	if want := filepath.Join(wd, "records"); o.RunsRoot() != want {
		t.Fatalf("RunsRoot() = %q, want %q", o.RunsRoot(), want)
	}
	if got := New(nil, Options{}).RunsRoot(); !filepath.IsAbs(got) || filepath.Base(got) != ".lux-runs" {
		t.Fatalf("default RunsRoot() = %q, want an absolute .lux-runs", got)
	}
}
