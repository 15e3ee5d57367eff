package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// sandboxOf reads the sandbox of the only run under root.
func sandboxOf(t *testing.T, root string) *sandbox.Info {
	t.Helper()
	m := metadataOf(t, root)
	require.NotNil(t, m.Provenance.Sandbox)
	return m.Provenance.Sandbox
}

// metadataOf reads the run.json of the only run under root.
func metadataOf(t *testing.T, root string) record.Metadata {
	t.Helper()
	var found []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == record.MetadataFile {
			found = append(found, p)
		}
		return err
	}))
	require.Len(t, found, 1)
	b, err := os.ReadFile(found[0])
	require.NoError(t, err)
	var m record.Metadata
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestSandboxLevelIsRecorded(t *testing.T) {
	if l, refused, _ := sandbox.Available(); !l.AtLeast(sandbox.LevelLandlock) {
		t.Skipf("no Landlock here: %v", refused)
	}
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	code, out, errOut := run(t, registry(t), "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	s := sandboxOf(t, p.runs)
	assert.Equal(t, sandbox.LevelLandlock, s.Level)
	assert.NotZero(t, s.LandlockABI)

	// lux view says it too.
	code, out, errOut = run(t, registry(t), "view", runDirOf(t, p.runs))
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^sandbox:     landlock \(Landlock ABI \d+`, out)
}

// runDirOf is the directory of the only run under root.
func runDirOf(t *testing.T, root string) string {
	t.Helper()
	var found []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == record.MetadataFile {
			found = append(found, filepath.Dir(p))
		}
		return err
	}))
	require.Len(t, found, 1)
	return found[0]
}

// A kernel without Landlock (simulated): the run degrades to limits and
// says why; -require-sandbox landlock refuses to run at all.
func TestSandboxDegradesOrRefuses(t *testing.T) {
	sandbox.ForceLandlockABI(0)
	t.Cleanup(func() { sandbox.ForceLandlockABI(-1) })
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)

	code, out, errOut := run(t, registry(t), "run", "-q", "-require-sandbox", "landlock", "-runs-root", p.runs, p.cases)
	require.Equal(t, 2, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "-require-sandbox: level landlock is required, but this machine gives only limits: landlock: not supported by this kernel (ENOSYS)")
	_, err := os.Stat(p.runs)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing ran")

	code, out, errOut = run(t, registry(t), "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "lux: sandbox: agents run at level limits: landlock: not supported by this kernel (ENOSYS)")
	s := sandboxOf(t, p.runs)
	assert.Equal(t, sandbox.LevelLimits, s.Level)
	assert.Contains(t, s.Refused, "landlock: not supported by this kernel (ENOSYS)")

	code, out, errOut = run(t, registry(t), "view", runDirOf(t, p.runs))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "refused: landlock: not supported by this kernel (ENOSYS)")
	assert.Regexp(t, `(?m)^sandbox:     limits \(`, out)
}

// A level below the strongest, chosen with -sandbox, is said on stderr
// and in the record.
func TestSandboxChosenLevel(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	code, out, errOut := run(t, registry(t), "run", "-q", "-sandbox", "none", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "lux: sandbox: agents run at level none (-sandbox)")
	s := sandboxOf(t, p.runs)
	assert.Equal(t, sandbox.LevelNone, s.Level)
	assert.Equal(t, sandbox.LevelNone, s.Requested)

	code, _, errOut = run(t, registry(t), "run", "-q", "-sandbox", "limits", "-require-sandbox", "landlock", "-runs-root", p.runs, p.cases)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "level limits is below the required landlock")
}

// netnsAgent asks the harness's proxy for a host lux.json does not allow,
// then does its work.
const netnsAgent = `#!/bin/bash
echo '{"type":"ready","agentId":"netns-agent"}'
p=${HTTPS_PROXY#http://}
if exec 3<>"/dev/tcp/${p%:*}/${p##*:}"; then
	printf 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n' >&3
	read -r status <&3
	echo "$status" >&2
fi
echo hi > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"done"}'
`

// lux.json chooses landlock+netns: the record names the level, what the
// agent could reach and what the proxy refused it.
func TestSandboxNetnsFromProjectFile(t *testing.T) {
	if l, refused, _ := sandbox.Available(); l != sandbox.LevelNetns {
		t.Skipf("no landlock+netns here: %v", refused)
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("the agent is a bash script")
	}
	p := newProject(t)
	p.writeAgent(t, "agent/agent.sh", netnsAgent)
	p.writeCase(t, "hello.case.json", helloCase)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "lux.json"), []byte(`{"sandbox": {"level": "landlock+netns", "allowHosts": ["api.example.com:443"]}}`), 0o644))
	code, out, errOut := run(t, registry(t), "run", "-q", "-config", filepath.Join(p.dir, "lux.json"), p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	s := sandboxOf(t, p.runs)
	assert.Equal(t, sandbox.LevelNetns, s.Level)
	assert.NotEmpty(t, s.Network)
	assert.Equal(t, []string{"api.example.com:443 (through the proxy at 127.0.0.1:3128)"}, s.Reachable)
	assert.Equal(t, []string{"the proxy refused CONNECT evil.example:443 (not an allowed host)"}, s.Denied)
}

// A machine that refuses namespaces (simulated): -require-sandbox
// landlock+netns refuses to run, naming the refusal; -sandbox
// landlock+netns degrades to landlock and the record says why.
func TestSandboxNetnsDegradesOrRefuses(t *testing.T) {
	if l, refused, _ := sandbox.Available(); !l.AtLeast(sandbox.LevelLandlock) {
		t.Skipf("no Landlock here: %v", refused)
	}
	sandbox.ForceNoNamespaces(true)
	t.Cleanup(func() { sandbox.ForceNoNamespaces(false) })
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)

	code, out, errOut := run(t, registry(t), "run", "-q", "-require-sandbox", "landlock+netns", "-runs-root", p.runs, p.cases)
	require.Equal(t, 2, code, "%s\n%s", out, errOut)
	assert.Contains(t, errOut, "-require-sandbox: level landlock+netns is required, but this machine gives only landlock:")
	assert.Contains(t, errOut, "namespace")

	code, out, errOut = run(t, registry(t), "run", "-q", "-sandbox", "landlock+netns", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	s := sandboxOf(t, p.runs)
	assert.Equal(t, sandbox.LevelLandlock, s.Level)
	assert.Equal(t, sandbox.LevelNetns, s.Requested)
	require.NotEmpty(t, s.Refused)
	assert.Contains(t, s.Refused[len(s.Refused)-1], "operation not permitted")
}

// meteredAgent calls its model endpoint, which the sandbox forwards, and
// reports no usage of its own.
const meteredAgent = `#!/bin/bash
echo '{"type":"ready","agentId":"metered-agent"}'
p=${MODEL_URL#http://}
exec 3<>"/dev/tcp/${p%:*}/${p##*:}" || exit 3
printf 'POST /v1/messages HTTP/1.1\r\nHost: model\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}' >&3
cat <&3 >/dev/null
echo hi > "$LUX_ARTIFACTS_DIR/hello.txt"
echo '{"type":"done"}'
`

// An agent that reports no usage, run at landlock+netns: the tokens of
// the model responses the sandbox forwarded are its usage, and the
// record names the method.
func TestSandboxNetnsMetersUsage(t *testing.T) {
	if l, refused, _ := sandbox.Available(); l != sandbox.LevelNetns {
		t.Skipf("no landlock+netns here: %v", refused)
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("the agent is a bash script")
	}
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"message","usage":{"input_tokens":120,"output_tokens":30,"cache_read_input_tokens":7}}`)
	}))
	defer model.Close()
	p := newProject(t)
	p.writeAgent(t, "agent/agent.sh", meteredAgent)
	p.writeCase(t, "hello.case.json", `{
  "prompt": "write hello.txt containing hi",
  "driver": {"name": "subprocess", "config": {"command": "../agent/agent.sh", "env": {"MODEL_URL": "`+model.URL+`"}}},
  "assertions": [{"type": "file-contains", "id": "says-hi", "path": "hello.txt", "text": "hi"}]
}`)
	code, out, errOut := run(t, registry(t), "run", "-q", "-sandbox", "landlock+netns", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	m := metadataOf(t, p.runs)
	require.NotNil(t, m.Usage.Agent)
	assert.Equal(t, lux.TokenUsage{Input: 120, Output: 30, CacheRead: 7}, *m.Usage.Agent)
	assert.Equal(t, sandbox.MeterMethod, m.Usage.AgentMethod)
}

// -require-sandbox landlock+netns alone runs at that level where the
// machine gives it.
func TestSandboxRequireNetns(t *testing.T) {
	if l, refused, _ := sandbox.Available(); l != sandbox.LevelNetns {
		t.Skipf("no landlock+netns here: %v", refused)
	}
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	code, out, errOut := run(t, registry(t), "run", "-q", "-require-sandbox", "landlock+netns", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Equal(t, sandbox.LevelNetns, sandboxOf(t, p.runs).Level)
}

// lux doctor in a directory with no cases still checks the runs root and
// the sandbox, and says how to check cases too.
func TestDoctorWithoutCases(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errOut := run(t, registry(t), "doctor", "-runs-root", filepath.Join(dir, "runs"))
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "sandbox")
	assert.Contains(t, out, "runs-root")
	assert.Contains(t, out, "no cases: no ./cases directory here")

	// A named path that does not exist is still an error.
	code, _, errOut = run(t, registry(t), "doctor", "-runs-root", filepath.Join(dir, "runs"), filepath.Join(dir, "missing"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "cannot load the cases")
}
