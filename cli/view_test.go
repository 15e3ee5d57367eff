package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestViewLatestAndCaseID(t *testing.T) {
	p := newProject(t)
	p.writeCase(t, "hello.case.json", helloCase)
	reg := registry(t)
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)

	code, out, errOut = run(t, reg, "view", "-runs-root", p.runs, "latest")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `hello\s+1\s+pass\s`, out, "latest is the suite")

	code, out, errOut = run(t, reg, "view", "-runs-root", p.runs, "hello")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "case:        hello")
	require.Regexp(t, `\+\S+s\s+tool-call write_file \{"path":"hello.txt"\}`, out, "tool calls with their input and time")
	require.Contains(t, out, "off-protocol: 1 line of output ignored (not protocol events): `not a protocol line`")
	require.NotRegexp(t, `lifecycle [a-z-]+\n`, out)
	require.Regexp(t, `\(\d+ lifecycle events hidden; -v shows them\)`, out)

	_, verbose, _ := run(t, reg, "view", "-v", "-runs-root", p.runs, "hello")
	require.Regexp(t, `lifecycle [a-z-]+\n`, verbose)

	_, all, _ := run(t, reg, "view", "-events", "0", "-v", "-runs-root", p.runs, "hello")
	n := regexp.MustCompile(`events \((\d+)\):`).FindStringSubmatch(all)
	require.NotNil(t, n, "-events 0 shows every event:\n%s", all)
	_, one, _ := run(t, reg, "view", "-events", "1", "-runs-root", p.runs, "hello")
	require.Contains(t, one, "last events (1 of ")
	require.Contains(t, one, "  done\n")

	code, _, errOut = run(t, reg, "view", "-runs-root", p.runs, "no-such-case")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `no-such-case is neither a run or suite directory, nor the id of a case`)
}

// A line meant as a protocol event that lux does not understand is
// ignored, but the record says so.
func TestOffProtocolLinesAreRecorded(t *testing.T) {
	p := newProject(t)
	p.writeAgent(t, "agent/typo.sh", `#!/bin/sh
echo '{"type":"ready","agentId":"typo-agent"}'
echo '{"type":"Done"}'
`)
	p.writeCase(t, "typo.case.json", `{
	  "prompt": "p",
	  "driver": {"name": "subprocess", "config": {"command": "../agent/typo.sh"}},
	  "assertions": [{"type": "run-succeeded"}]
	}`)
	reg := registry(t)
	code, out, errOut := run(t, reg, "run", "-q", "-runs-root", p.runs, p.cases)
	require.Equal(t, 1, code, "%s\n%s", out, errOut)
	require.Contains(t, out, "agent exited before done")

	_, out, _ = run(t, reg, "view", "-runs-root", p.runs, "typo")
	require.Contains(t, out, "off-protocol: 1 line of output ignored (not protocol events): `{\"type\":\"Done\"}`")
	require.Less(t, strings.Index(out, "off-protocol"), strings.Index(out, "error(error): agent exited before done"))
}
