package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/fakeproc"
	"github.com/luxeval/lux/orchestrator"
)

// The test binary doubles as a deterministic agent speaking lux-jsonl:
// with LUX_TEST_AGENT set it follows the instructions file named by
// INSTRUCTIONS (a file of the subject) instead of running the tests.
//
//	write PATH TEXT   writes PATH in the workspace
//	tamper            writes into the subject tree
//	fail              ends the run in error
func TestMain(m *testing.M) {
	if os.Getenv("LUX_TEST_AGENT") == "1" {
		fakeproc.Exit(testAgent())
	}
	if dir := os.Getenv("LUX_TEST_EXPERIMENT"); dir != "" {
		if os.Getenv(judgeHangingEnv) != "" {
			// The pipe that says the judge call hangs is this process's
			// alone: no agent it starts holds it open.
			syscall.CloseOnExec(judgeHangingFD)
		}
		if _, err := os.Stat(filepath.Join(dir, graderCampaignFile)); err == nil {
			os.Exit(childGrader(dir, os.Getenv("LUX_TEST_LEDGER")))
		}
		os.Exit(childExperiment(dir, os.Getenv("LUX_TEST_LEDGER")))
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
	instructions := os.Getenv("INSTRUCTIONS")
	if len(os.Args) > 1 {
		instructions = os.Args[1] // the instructions file given as the argument
	}
	data, err := os.ReadFile(instructions)
	if err != nil {
		emit(map[string]any{"type": "error", "reason": err.Error()})
		return 0
	}
	ws := os.Getenv("LUX_ARTIFACTS_DIR")
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 3 && f[0] == "write":
			_ = os.WriteFile(filepath.Join(ws, f[1]), []byte(strings.Join(f[2:], " ")), 0o644)
		case len(f) == 1 && f[0] == "tamper":
			_ = os.WriteFile(filepath.Join(filepath.Dir(instructions), "tampered.txt"), []byte("x"), 0o644)
		case len(f) == 1 && f[0] == "fail":
			emit(map[string]any{"type": "error", "reason": "told to fail"})
			return 0
		}
	}
	emit(map[string]any{"type": "done", "summary": map[string]any{
		"usage": map[string]int64{"input": int64(len(data)), "output": 10, "cacheRead": 0, "cacheCreation": 0},
	}})
	return 0
}

// testRegistry is the subprocess driver and the built-in assertions.
func testRegistry(t testing.TB) *lux.Registry {
	t.Helper()
	reg := lux.NewRegistry()
	if err := reg.RegisterDriver(subprocess.Plugin()); err != nil {
		t.Fatal(err)
	}
	for _, p := range assertion.All() {
		if err := reg.RegisterAssertion(p); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// agentProfile runs the test binary as the agent, reading AGENTS.md of
// the candidate's tree.
func agentProfile(t testing.TB) Profile {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return agentProfileOf(exe)
}

func agentProfileOf(exe string) Profile {
	return Profile{Driver: &lux.PluginRef{Name: "subprocess", Config: map[string]any{
		"command": exe,
		"env":     map[string]string{"LUX_TEST_AGENT": "1", "INSTRUCTIONS": orchestrator.SubjectRootToken + "/AGENTS.md"},
	}}}
}

// fixture writes a project: a subject with AGENTS.md holding instructions
// and cases (id → required file content) under cases/<split>/.
type fixture struct {
	dir string
}

func newFixture(t testing.TB, instructions string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir}
	f.write(t, "subject/AGENTS.md", instructions)
	f.write(t, "subject/README.md", "not mutable")
	return f
}

func (f *fixture) write(t testing.TB, rel, content string) {
	t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addCase writes a case of split that passes when file holds text.
func (f *fixture) addCase(t testing.TB, split, id, cluster, file, text string) {
	t.Helper()
	c := map[string]any{
		"id": id, "prompt": "do " + id,
		"assertions": []map[string]any{{"type": "file-contains", "path": file, "text": text}},
	}
	if cluster != "" {
		c["cluster"] = cluster
	}
	b, _ := json.Marshal(c)
	f.write(t, "cases/"+split+"/"+id+".case.json", string(b))
}

func (f *fixture) campaign(t testing.TB) *Campaign {
	t.Helper()
	return &Campaign{
		ID: "instructions", Dir: f.dir,
		Subject:     Subject{Root: "subject", Mutable: []string{"AGENTS.md"}},
		Profiles:    map[string]Profile{"default": agentProfile(t)},
		Splits:      Splits{Validation: &Selector{Patterns: []string{"cases/validation"}}},
		Repetitions: Repetitions{Promotion: 1},
	}
}

func ctx(t testing.TB) context.Context { return t.Context() }
