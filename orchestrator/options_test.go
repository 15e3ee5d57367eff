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

func TestDiagnosticString(t *testing.T) {
	d := Diagnostic{ID: "command:claude", Status: StatusFail, Message: "claude is not installed", Detail: "npm install -g @anthropic-ai/claude-code"}
	want := "fail command:claude: claude is not installed\n     npm install -g @anthropic-ai/claude-code"
	if got := d.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got := (Diagnostic{ID: "runs-root", Status: StatusPass, Message: "writable"}).String(); got != "pass runs-root: writable" {
		t.Fatalf("String() = %q", got)
	}
}
