package assertion_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	a "github.com/luxeval/lux/assertion"
)

// Every constructor builds a spec that its plugin accepts, also after the
// case goes through JSON (as it does in case.json).
func TestConstructorsParse(t *testing.T) {
	specs := []lux.AssertionSpec{
		a.RunSucceeded(),
		a.FileExists("README.md", a.ID("readme"), a.Weight(2), a.Threshold(1), a.Named("has a readme")),
		a.FileExists("run.log", a.In(a.InRun)),
		a.FileContains("README.md", "## Usage"),
		a.FileMatches("README.md", `^## \w+`, a.Flags("m")),
		a.FileRegexCount("log.txt", "error", a.Flags("i"), a.Min(1), a.Max(4)),
		a.GlobCount("**/*.go", a.Min(1)),
		a.JSONPointerEquals("data.json", "/tags", []string{"a", "b"}),
		a.JSONPointerEquals("data.json", "/nil", nil),
		a.CommandExitsZero("go vet ./...", a.Timeout(5*time.Minute), a.Cwd("src"), a.Env(map[string]string{"CGO_ENABLED": "0"}), a.InheritEnv("GOPATH", "GOCACHE")),
		a.Contains("done", a.Against(a.TranscriptAll)),
		a.NotContains("error"),
		a.Regex(`\d+ tests? passed`, a.Flags("i")),
		a.ToolCalled("Bash", a.MinTimes(1), a.MaxTimes(3), a.By(assertion.MainAgent)),
		a.ToolCallCount(a.Tool("Edit"), a.Max(10)),
		a.ToolCalledWith("Bash", a.ArgsPointer("/command"), a.ArgsContains("go test")),
		a.ToolCalledWith("Bash", a.ArgsPointer("/command"), a.ArgsValue("go test ./..."), a.MinTimes(2)),
		a.InterruptCount(a.Kind(lux.Approve), a.Max(0)),
		a.LatencyUnder(5 * time.Minute),
		a.TokensUnder(200_000, a.Component(a.ComponentOutput), a.OnUnavailable(a.UnavailableFail)),
		a.CostUnder(0.5),
		a.ArtifactBytesUnder(1 << 20),
		a.FileRegexSet("main.go", a.ModeNone, []string{`TODO`, `FIXME`}, a.Flags("i"), a.In(a.InWorkspace)),
		a.ToolInvocation("add_note", a.ResultKind(a.ResultError), a.Occurrence(a.OccurrenceFirst),
			a.Input(a.Match{JSONPointer: "/title", Equals: "groceries"}), a.Output(a.Match{Matches: "invalid", Flags: "i"})),
		a.ToolResultIsError("", a.Expected(false), a.Occurrence(a.OccurrenceAny)),
		a.ToolResultContains("Bash", "PASS", a.Occurrence(a.OccurrenceLast)),
		a.ToolResultJSONPointerEquals("add_note", "/path", "notes/a.md", a.ID("path")),
		a.ToolResultJSONPointerContains("add_note", "/path", "notes/", a.Occurrence(a.OccurrenceAny)),
		a.NoErrorResults(a.AllowEmpty()),
	}
	for i, s := range specs {
		t.Run(s.DisplayName(), func(t *testing.T) {
			raw, err := lux.ConfigJSON(s.Config)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := plugin(t, s.Type).Parse(raw); err != nil {
				t.Fatalf("Parse(%s): %v", raw, err)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back lux.AssertionSpec
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Type != s.Type || back.ID != s.ID || back.Weight != s.Weight || back.Name != s.Name {
				t.Errorf("round trip changed the spec: %+v -> %+v", s, back)
			}
			raw, _ = lux.ConfigJSON(back.Config)
			if _, err := plugin(t, back.Type).Parse(raw); err != nil {
				t.Fatalf("specs[%d] after JSON: Parse(%s): %v", i, raw, err)
			}
		})
	}
}

func TestConstructorFields(t *testing.T) {
	got := a.FileExists("README.md", a.ID("readme"), a.Weight(2), a.Threshold(0.5), a.Named("readme"), a.In(a.InRun))
	want := lux.AssertionSpec{ID: "readme", Type: "file-exists", Name: "readme", Weight: 2, Threshold: 0.5,
		Config: map[string]any{"path": "README.md", "in": "run"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FileExists (-want +got):\n%s", diff)
	}
}
