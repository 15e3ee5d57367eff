package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/internal/clitest"
	"github.com/luxeval/lux/record"
)

// TestExample runs the whole example against scripted model servers: the
// real CLI in both modes, the codex driver, the scripted answerer and the
// built-in assertions.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Codex CLI three times")
	}
	cli := clitest.Find(t, "codex")
	root := t.TempDir()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, options{runs: root, codex: cli, model: "gpt-5.5"})
	require.NoError(t, err, out.String())
	text := out.String()
	for _, re := range []string{
		`(?m)^hello-shell\s+PASS\s+done\s+0\s+0\s+4180\s+unavailable$`,    // Codex reports no cost
		`(?m)^favorite-color\s+PASS\s+done\s+1\s+1\s+4080\s+unavailable$`, // Codex reports no cost
		`(?m)^no-network\s+PASS\s+done\s+0\s+2\s+4070\s+unavailable$`,     // Codex reports no cost
		`Records: .*\.suites`,
	} {
		assert.Regexp(t, regexp.MustCompile(re), text)
	}

	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 1)
	s, err := record.ReadSuite(suites[0])
	require.NoError(t, err)
	r, err := record.ReadRun(s.RunDir(0), record.ReadOptions{})
	require.NoError(t, err)
	m := r.Metadata
	assert.Equal(t, "hello-shell", m.CaseID)
	require.NotNil(t, m.Usage.Agent, "the CLI's usage was not recorded")
	// The script's three responses: 1200+1400+1500 input tokens as the
	// CLI counts them, of which 1200+1400 cached; 40+30+10 output.
	assert.Equal(t, int64(1500), m.Usage.Agent.Input)
	assert.Equal(t, int64(80), m.Usage.Agent.Output)
	assert.Equal(t, int64(2600), m.Usage.Agent.CacheRead)
	assert.Nil(t, m.Usage.AgentCostUSD, "the CLI reports no cost")
	assert.Equal(t, "0.169.0", m.Provenance.Runtime.Commands[0].Version)
	assert.Equal(t, "codex-cli 0.169.0", m.Provenance.Runtime.Commands[0].RawVersion)
}
