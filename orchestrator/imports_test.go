package orchestrator

import (
	"os/exec"
	"strings"
	"testing"
)

// The orchestrator runs cases and writes their records; comparing,
// reporting and campaigns are built on those records, above it. An import
// of any of them from the orchestrator (directly or through another
// package) would make every program that runs a case carry them, and
// invite a second way of doing their job here.
func TestOrchestratorDoesNotImportPackagesAboveIt(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list imports with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", "github.com/luxeval/lux/orchestrator").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/luxeval/lux/record"] {
		t.Fatalf("go list -deps lists no github.com/luxeval/lux/record, so it is not listing the orchestrator's imports:\n%s", out)
	}
	for _, above := range []string{"compare", "report", "experiment", "cli", "luxtest"} {
		if p := "github.com/luxeval/lux/" + above; deps[p] {
			t.Errorf("orchestrator imports %s (directly or through a dependency); it must not: use package %s on the records the orchestrator returns", p, above)
		}
	}
}
