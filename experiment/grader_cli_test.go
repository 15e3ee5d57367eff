package experiment

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/harnesstest"
	"github.com/luxeval/lux/modeltest"
)

// The grader experiment of the fixture with the real CLIs as the judge,
// against a model server that answers each judge call from the criterion
// and the evidence it is sent (judgeAnswer), so the verdicts are
// deterministic whatever order the calls come in: the lenient rubric is
// rejected for its false positives and the strict one promoted, with the
// agreement computed by hand.
func TestGraderExperimentWithTheRealCLIsAsJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real CLIs")
	}
	for _, tc := range []struct {
		name  string
		judge func(testing.TB, *modeltest.Server) harness.Config
	}{
		{"claude", harnesstest.Claude},
		{"codex", harnesstest.Codex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := writeGraderFixture(t, dir, 1)
			usage := modeltest.Usage{InputTokens: 800, OutputTokens: 12}
			srv := modeltest.Start(t, modeltest.Script{{Text: judgePass, Usage: usage}, {Text: judgeFail, Usage: usage}},
				modeltest.WithSideCalls(nil), modeltest.WithTurnOf(func(r *modeltest.Request) int {
					if judgeAnswer(r.UserText()) == judgePass {
						return 0
					}
					return 1
				}))
			c, err := Load(path)
			require.NoError(t, err)
			c.Grader.Judge = tc.judge(t, srv)
			reg, err := graderRegistry(nil)
			require.NoError(t, err)
			res, err := Run(ctx(t), reg, c, Options{RunsRoot: filepath.Join(dir, "runs"), Concurrency: 3})
			require.NoError(t, err)
			checkGraderDecision(t, res, 1)
			assert.GreaterOrEqual(t, len(srv.TurnRequests()), 24, "every grading asked the served judge")
			assert.Equal(t, int64(24*812), res.Manifest.Spent.Tokens, "the judge's tokens, as the CLI reported them")
			require.NoError(t, srv.Err())
		})
	}
}
