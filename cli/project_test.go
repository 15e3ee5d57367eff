package cli_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/stretchr/testify/require"
)

// project is a new user's first project: a small lux-jsonl agent script
// and cases as files, in a fresh directory that is not the working
// directory of the command line.
type project struct {
	dir   string // the project root
	cases string // its cases/ directory
	runs  string // where its records go
}

// helloAgent writes hello.txt, reports one tool call and its usage, and
// finishes; its prompt is ignored.
const helloAgent = `#!/bin/sh
echo '{"type":"ready","agentId":"hello-agent"}'
echo "not a protocol line"
echo hi > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"progress","id":"p1","kind":"tool-call","payload":{"name":"write_file","input":{"path":"hello.txt"},"toolUseId":"t1"}}'
echo '{"type":"progress","id":"p2","kind":"tool-result","payload":{"name":"write_file","toolUseId":"t1","output":"ok"}}'
echo '{"type":"done","summary":{"usage":{"input":120,"output":30}}}'
`

func newProject(t *testing.T) *project {
	t.Helper()
	dir := t.TempDir()
	p := &project{dir: dir, cases: filepath.Join(dir, "cases"), runs: filepath.Join(dir, ".lux-runs")}
	p.writeAgent(t, "agent/agent.sh", helloAgent)
	return p
}

func (p *project) writeAgent(t *testing.T, name, script string) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// writeCase writes cases/name.
func (p *project) writeCase(t *testing.T, name, body string) string {
	t.Helper()
	return writeCase(t, p.cases, name, body)
}

// helloCase names the agent by a path relative to the case file.
const helloCase = `{
  "prompt": "write hello.txt containing hi",
  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh"}},
  "assertions": [{"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"}]
}`

// withVerdicts writes a case that passes (a-pass), one that fails
// (b-fail) and one the harness cannot grade (c-cannot-grade: its
// assertion grader-down, registered in the returned registry, errors).
func withVerdicts(t *testing.T, p *project) *lux.Registry {
	t.Helper()
	p.writeCase(t, "a-pass.case.json", helloCase)
	p.writeCase(t, "b-fail.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh"}},
	  "assertions": [{"type": "file-exists", "id": "readme", "path": "README.md"}]
	}`)
	p.writeCase(t, "c-cannot-grade.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh"}},
	  "assertions": [{"type": "grader-down", "id": "review"}]
	}`)
	reg := registry(t)
	require.NoError(t, reg.RegisterAssertion(assertion.Predicate("grader-down", func(context.Context, *lux.Run) (lux.Result, error) {
		return lux.Result{}, errors.New("the review service did not answer")
	})))
	return reg
}

// A relative driver command resolves against the case file's directory,
// as its fixtures do, whatever the working directory.
func TestRelativeDriverCommandResolvesAgainstTheCaseFile(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeCase(t, "nested/deeper.case.json", `{
	  "prompt": "write hello.txt containing hi",
	  "driver": {"name": "subprocess", "config": {"command": "../../agent/agent.sh"}},
	  "assertions": [{"type": "file-contains", "path": "hello.txt", "text": "hi"}]
	}`)
	reg := registry(t)

	code, out, errOut := run(t, reg, "doctor", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.NotContains(t, out, "not found")

	code, out, errOut = run(t, reg, "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "2 runs: 2 passed")

	p.writeCase(t, "broken.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/missing.sh"}},
	  "assertions": [{"type": "file-exists", "path": "x"}]
	}`)
	code, out, _ = run(t, reg, "doctor", "-runs-root", p.runs, p.cases)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "../agent/missing.sh")
	require.Contains(t, out, filepath.Join(p.dir, "agent", "missing.sh"))
	require.NotContains(t, out, "not found on PATH")
}

// Validating a directory reports every problem of every file, each once,
// the file's name once, at its exact field path.
func TestValidateReportsEveryFilesProblemsOnce(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	p.writeCase(t, "bad/typo.case.json", `{"prompt": "p", "promt": "x", "tags": "smoke",
	  "driver": {"name": "subprocess", "config": {"command": "../../agent/agent.sh"}},
	  "assertions": [{"type":"file-exists","path":"a"},{"type":"file-exists","path":"b"},
	                 {"type":"file-exists","path":"c"},{"type":"file-exists","path":"d","weight":"heavy"}]}`)
	p.writeCase(t, "bad/broken.case.json", "{\"prompt\": \"p\",\n  \"assertions\": [\n    {\"type\": \"file-exists\", \"path\": \"a\",}\n  ]\n}\n")
	p.writeCase(t, "bad/worse.case.json", `{"prompt": "", "assertions": [{"type": "file-exists"}],
	  "driver": {"name": "subprocess", "config": {"command": "x", "bogus": 1}}}`)
	t.Chdir(p.dir)
	code, out, errOut := run(t, registry(t), "validate", "cases")
	require.Equal(t, 2, code, errOut)
	want := []string{
		"cases/bad/broken.case.json:\n  - not valid JSON at line 3, column 41: invalid character '}' looking for beginning of object key string\n",
		"cases/bad/typo.case.json:\n" +
			"  - promt: unknown field (did you mean \"prompt\"?)\n" +
			"  - assertions[3].weight: must be a number, got string\n" +
			"  - tags: must be a list, got string\n",
		"cases/bad/worse.case.json:\n" +
			"  - prompt: required (say what the agent should do)\n" +
			"  - driver.config.bogus: unknown field (",
		"  - assertions[0].path: required (",
		"cases/hello.case.json: ok (hello)\n",
		"3 of 4 case files are invalid\n",
	}
	for _, w := range want {
		require.Contains(t, out, w)
	}
	for _, f := range []string{"broken", "typo", "worse"} {
		require.Equal(t, 1, strings.Count(out, f+".case.json"), "the file is named once:\n%s", out)
	}
	require.NotContains(t, out, "lux: invalid case")

	code, out, _ = run(t, registry(t), "validate", "-json", "cases")
	require.Equal(t, 2, code)
	doc := decodeJSON(t, out, "lux.validate/v1")
	require.EqualValues(t, 3, doc["invalid"])
}
