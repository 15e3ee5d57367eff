package optimize

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/internal/fakeproc"
	"github.com/luxeval/lux/orchestrator"
)

// The test binary doubles as an agent that follows its instructions file
// (AGENTS.md of the candidate's tree), a line at a time:
//
//	write PATH TEXT   writes PATH in the workspace
func TestMain(m *testing.M) {
	if os.Getenv("LUX_TEST_AGENT") == "1" {
		fakeproc.Exit(testAgent())
	}
	if dir := os.Getenv("LUX_TEST_SEARCH"); dir != "" {
		os.Exit(childSearch(dir, os.Getenv("LUX_TEST_LEDGER")))
	}
	os.Exit(m.Run())
}

func testAgent() int {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("testagent 1")
		return 0
	}
	out := json.NewEncoder(os.Stdout)
	emit := func(v map[string]any) { _ = out.Encode(v) }
	emit(map[string]any{"type": "ready", "agentId": "testagent", "agentVersion": "1"})
	data, err := os.ReadFile(os.Getenv("INSTRUCTIONS"))
	if err != nil {
		emit(map[string]any{"type": "error", "reason": err.Error()})
		return 0
	}
	ws := os.Getenv("LUX_ARTIFACTS_DIR")
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "write" {
			_ = os.WriteFile(filepath.Join(ws, f[1]), []byte(strings.Join(f[2:], " ")), 0o644)
		}
	}
	emit(map[string]any{"type": "done", "summary": map[string]any{
		"usage": map[string]int64{"input": int64(len(data)), "output": 10, "cacheRead": 0, "cacheCreation": 0},
	}})
	return 0
}

func testRegistry(t testing.TB) *lux.Registry {
	t.Helper()
	reg, err := registry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func registry() (*lux.Registry, error) {
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		return nil, err
	}
	return reg, assertion.Register(reg)
}

// The project: the agent must write a.txt in the house style. Train
// cases only check for "tabs"; validation and test cases check for the
// whole rule, "indent with tabs". So "write a.txt tabs" fits train only,
// and "write a.txt indent with tabs" is the fix.
const (
	baselineAgents = "write a.txt indent with spaces\n"
	overfitAgents  = "write a.txt tabs\n"
	fixAgents      = "write a.txt indent with tabs\n"
)

func writeFile(dir, rel, content string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func writeProject(dir string) error {
	files := map[string]string{"subject/AGENTS.md": baselineAgents, "subject/README.md": "not mutable\n"}
	addCase := func(split, id, text string) {
		b, _ := json.Marshal(map[string]any{"id": id, "prompt": "secret prompt of " + id,
			"assertions": []map[string]any{{"type": "file-contains", "path": "a.txt", "text": text}}})
		files["cases/"+split+"/"+id+".case.json"] = string(b)
	}
	for _, id := range []string{"train-a", "train-b"} {
		addCase("train", id, "tabs")
	}
	for i := range 6 {
		addCase("validation", fmt.Sprintf("heldout-v%d", i), "indent with tabs")
		addCase("test", fmt.Sprintf("heldout-t%d", i), "indent with tabs")
	}
	for rel, s := range files {
		if err := writeFile(dir, rel, s); err != nil {
			return err
		}
	}
	return nil
}

func campaignOf(dir, exe string) *experiment.Campaign {
	min := 0.01
	gate := func(split string) experiment.Constraint {
		return experiment.Constraint{Metric: "quality.passRate", Split: split, RelativeTo: experiment.BaselineID, Min: &min,
			Confidence: &experiment.Confidence{}}
	}
	return &experiment.Campaign{
		ID: "house-style", Dir: dir,
		Subject: experiment.Subject{Root: "subject", Mutable: []string{"AGENTS.md"}},
		Profiles: map[string]experiment.Profile{"default": {Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
			"command": exe,
			"env":     map[string]string{"LUX_TEST_AGENT": "1", "INSTRUCTIONS": orchestrator.SubjectRootToken + "/AGENTS.md"},
		}}}},
		Splits: experiment.Splits{
			Train:      &experiment.Selector{Patterns: []string{"cases/train"}},
			Validation: &experiment.Selector{Patterns: []string{"cases/validation"}},
			Test:       &experiment.Selector{Patterns: []string{"cases/test"}},
		},
		Objectives: experiment.Objectives{Constraints: []experiment.Constraint{gate(experiment.SplitValidation), gate(experiment.SplitTest)}},
	}
}

func project(t testing.TB) *experiment.Campaign {
	t.Helper()
	dir := t.TempDir()
	if err := writeProject(dir); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return campaignOf(dir, exe)
}

// scripted is an optimizer that replies, call after call, with the next
// of its steps (a proposal list or an error), and keeps what it was shown.
type scripted struct {
	mu     sync.Mutex
	steps  []step
	inputs []*Input
}

type step struct {
	props []Proposal
	err   error
}

func (s *scripted) Propose(_ context.Context, in *Input) ([]Proposal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, in)
	if len(s.steps) == 0 {
		return nil, fmt.Errorf("script exhausted")
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	return st.props, st.err
}

func propose(rationale, agents string) step {
	return step{props: []Proposal{{Rationale: rationale, Files: map[string]string{"AGENTS.md": agents}, Usage: lux.TokenUsage{Input: 100, Output: 20}}}}
}
