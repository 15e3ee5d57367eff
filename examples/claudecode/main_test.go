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
// real CLI, the claude-code driver, the scripted answerer and the built-in
// assertions.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI three times")
	}
	claude := clitest.Find(t, "claude")
	root := t.TempDir()
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, options{runs: root, claude: claude, model: "claude-haiku-4-5"})
	require.NoError(t, err, out.String())
	text := out.String()
	for _, re := range []string{
		`(?m)^hello-shell\s+PASS\s+done\s+0\s+\d+\s+\d+\s+0\.\d{6}$`,
		`(?m)^favorite-color\s+PASS\s+done\s+1\s+1\s+\d+\s+0\.\d{6}$`,
		`(?m)^no-network\s+PASS\s+done\s+0\s+2\s+\d+\s+0\.\d{6}$`,
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
	// The script's three responses: 1200+200+100 input, 40+30+10 output,
	// 1200+1400 read from the cache.
	assert.Equal(t, int64(1500), m.Usage.Agent.Input)
	assert.Equal(t, int64(80), m.Usage.Agent.Output)
	assert.Equal(t, int64(2600), m.Usage.Agent.CacheRead)
	require.NotNil(t, m.Usage.AgentCostUSD)
	assert.Regexp(t, `^2\.1\.328`, m.Provenance.Runtime.Commands[0].Version)
}
