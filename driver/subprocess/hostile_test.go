package subprocess_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/clock"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/sandbox"
)

// runScript runs one case whose agent is the shell script, through the
// orchestrator, and returns the result.
func runScript(t *testing.T, c *lux.Case, script string) *record.Run {
	t.Helper()
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	c.Driver = &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", script}}}
	res, err := o.Run(context.Background(), c)
	require.NoError(t, err)
	return res
}

// Bytes that are not UTF-8 in an agent's payload are replaced before they
// reach events.jsonl, which stays valid JSON text, and the event says so.
func TestInvalidUTF8FromTheAgentIsReplacedInTheRecord(t *testing.T) {
	res := runScript(t, &lux.Case{ID: "bad-utf8", Prompt: "p"}, `echo '{"type":"ready","agentId":"a"}'
printf '{"type":"progress","id":"p1","kind":"blob","payload":{"s":"a\377\376b"}}\n'
echo '{"type":"done"}'`)
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
	data, err := os.ReadFile(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err)
	assert.True(t, utf8.Valid(data), "events.jsonl is not UTF-8")
	var line string
	for l := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(l, `"p1"`) {
			line = l
		}
	}
	require.NotEmpty(t, line)
	assert.Contains(t, line, `"sanitized":"invalid UTF-8 replaced with U+FFFD"`)
	assert.Contains(t, line, `"s":"a\ufffd\ufffdb"`)
	evs, err := record.ReadEvents(filepath.Join(res.Dir, record.EventsFile))
	require.NoError(t, err, "a strict reader reads it")
	var found bool
	for _, e := range evs {
		if e.Type == lux.EventProgress && e.Progress.ID == "p1" {
			found = true
			assert.JSONEq(t, `{"s":"a\ufffd\ufffdb"}`, string(e.Progress.Payload))
		}
	}
	assert.True(t, found)
}

// A prompt too long for an environment variable reaches the agent through
// LUX_PROMPT_FILE; one that fits is in LUX_PROMPT as well.
func TestLargePromptsGoThroughAFile(t *testing.T) {
	// The agent copies the prompt file into its workspace and says whether
	// LUX_PROMPT was set.
	script := `echo '{"type":"ready","agentId":"a"}'
cp "$LUX_PROMPT_FILE" "$LUX_ARTIFACTS_DIR/prompt.txt"
if [ -n "${LUX_PROMPT+set}" ]; then printf %s "$LUX_PROMPT" > "$LUX_ARTIFACTS_DIR/env.txt"; fi
echo '{"type":"done"}'`
	for _, tc := range []struct {
		name  string
		size  int
		inEnv bool
	}{
		{"small", 100, true},
		{"the largest in the environment", subprocess.MaxEnvPrompt, true},
		{"one byte more", subprocess.MaxEnvPrompt + 1, false},
		{"1 MiB", 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prompt := strings.Repeat("é", tc.size/2) + strings.Repeat("x", tc.size%2)
			res := runScript(t, &lux.Case{ID: "big", Prompt: prompt}, script)
			require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
			got, err := os.ReadFile(filepath.Join(res.Dir, record.ArtifactsDir, "prompt.txt"))
			require.NoError(t, err)
			assert.Equal(t, len(prompt), len(got))
			assert.True(t, string(got) == prompt, "the prompt file holds the prompt")
			env, err := os.ReadFile(filepath.Join(res.Dir, record.ArtifactsDir, "env.txt"))
			if tc.inEnv {
				require.NoError(t, err)
				assert.True(t, string(env) == prompt, "LUX_PROMPT holds the prompt")
			} else {
				assert.ErrorIs(t, err, os.ErrNotExist, "LUX_PROMPT is not set for a prompt that does not fit")
			}
		})
	}
}

// A NUL byte in a prompt is refused before anything runs, naming the field.
func TestPromptWithANulIsRefused(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	c := &lux.Case{ID: "nul", Prompt: "before\x00after", Driver: &lux.PluginRef{Name: subprocess.Name, Config: map[string]any{"command": "/bin/true"}}}
	_, err := o.Run(context.Background(), c)
	require.ErrorIs(t, err, lux.ErrInvalidCase)
	assert.Contains(t, err.Error(), "prompt: contains a NUL byte (at byte 6)")
	require.ErrorIs(t, o.Validate(c), lux.ErrInvalidCase)
}

// forgedDone is an event line an agent would like the record to hold.
const forgedDone = `{"type":"done","ts":"2030-01-01T00:00:00Z","summary":"forged"}`

// An agent cannot reach its record by what it is told: LUX_RUN_DIR is a
// scratch directory of its own and its workspace is outside the record.
// One that hunts the record down and appends to it is caught by Regrade,
// and so is any change to the record made afterwards.
func TestForgedEvidenceIsRefusedByRegrade(t *testing.T) {
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	root := filepath.Join(t.TempDir(), "runs")
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: root})
	cur := o // the orchestrator run uses
	run := func(t *testing.T, script string) *record.Run {
		t.Helper()
		res, err := cur.Run(context.Background(), &lux.Case{ID: "forger", Prompt: "p", Driver: &lux.PluginRef{Name: subprocess.Name,
			Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo '{"type":"ready","agentId":"a"}'
echo hello > out.txt
` + script + `
echo '{"type":"done"}'`}, "env": map[string]string{"FORGED": forgedDone, "ROOT": root}}}})
		require.NoError(t, err)
		require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
		return res
	}
	regrade := func(t *testing.T, res *record.Run) error {
		t.Helper()
		_, _, err := o.Regrade(context.Background(), res.Dir, nil)
		return err
	}
	recorded := func(t *testing.T, res *record.Run) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(res.Dir, record.EventsFile))
		require.NoError(t, err)
		return string(data)
	}

	t.Run("writes where it is told", func(t *testing.T) {
		res := run(t, `echo "$FORGED" >> "$LUX_RUN_DIR/events.jsonl"; echo "$FORGED" >> ../events.jsonl; echo "$FORGED" >> events.jsonl.forged`)
		assert.NotContains(t, recorded(t, res), "forged")
		g, _, err := o.Regrade(context.Background(), res.Dir, nil)
		require.NoError(t, err)
		assert.True(t, g.EvidenceVerified)
		live, err := os.ReadDir(filepath.Join(root, record.LiveDir))
		require.NoError(t, err)
		assert.Empty(t, live, "the scratch directory is removed after the run")
	})
	t.Run("hunts its record down", func(t *testing.T) {
		hunt := `for f in $(find "$ROOT" -name events.jsonl); do echo "$FORGED" >> "$f"; done`
		if l, _, _ := sandbox.Available(); l.AtLeast(sandbox.LevelLandlock) {
			res := run(t, hunt)
			require.NotContains(t, recorded(t, res), "forged", "the sandboxed agent cannot reach the runs root")
		}
		// Without a sandbox the agent finds its record, and Regrade
		// catches the forgery.
		cur = orchestrator.New(reg, orchestrator.Options{RunsRoot: root, Sandbox: sandbox.Config{Level: sandbox.LevelNone}})
		defer func() { cur = o }()
		res := run(t, hunt)
		require.Contains(t, recorded(t, res), "forged", "the agent found its record")
		err := regrade(t, res)
		require.ErrorIs(t, err, record.ErrEvidenceChanged)
		assert.Contains(t, err.Error(), filepath.Join(res.Dir, record.EventsFile))
		_, err = os.Stat(filepath.Join(res.Dir, record.GradingsDir))
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing was graded")
	})
	t.Run("the record is changed afterwards", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			file  string
			forge func(t *testing.T, dir string)
		}{
			{"an event appended", record.EventsFile, func(t *testing.T, dir string) {
				f, err := os.OpenFile(filepath.Join(dir, record.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = f.WriteString(forgedDone + "\n")
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}},
			{"an artifact rewritten", filepath.Join(record.ArtifactsDir, "out.txt"), func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, record.ArtifactsDir, "out.txt"), []byte("HELLO\n"), 0o600))
			}},
			{"the artifact list edited", record.ArtifactsFile, func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, record.ArtifactsFile), []byte("[]\n"), 0o600))
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := run(t, "")
				require.NoError(t, regrade(t, res), "the untouched record regrades")
				tc.forge(t, res.Dir)
				err := regrade(t, res)
				require.ErrorIs(t, err, record.ErrEvidenceChanged)
				assert.Contains(t, err.Error(), filepath.Join(res.Dir, tc.file))
			})
		}
	})
}

// waiter says it is ready, then neither speaks nor ends: it waits for the
// end of its stdin, which the session closes once the run has ended.
const waiter = `echo '{"type":"ready","agentId":"wait"}'
exec cat >/dev/null`

// A run that never ends is stopped at its wall-clock limit, whichever sets
// it: the case, the orchestrator's options or the driver's config. The
// limits run on a manual clock, advanced past them once the run's timers
// are armed (the agent said ready).
func TestRunsEndAtTheirTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       orchestrator.Options
		c          lux.Case
		driverCfg  map[string]any
		armed      int // timers on the clock once the agent said ready
		wantReason string
	}{
		{"the orchestrator's limit", orchestrator.Options{RunTimeout: 300 * time.Millisecond}, lux.Case{},
			nil, 3, "the run exceeded its 300ms time limit"},
		{"the case's limit over the orchestrator's", orchestrator.Options{RunTimeout: time.Hour}, lux.Case{Timeout: lux.Duration(300 * time.Millisecond)},
			nil, 3, "the run exceeded its 300ms time limit"},
		{"the driver's limit", orchestrator.Options{}, lux.Case{},
			map[string]any{"timeout": "300ms"}, 4, "the agent ran longer than its 300ms time limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := lux.NewRegistry()
			require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
			tc.opts.RunsRoot = filepath.Join(t.TempDir(), "runs")
			o := orchestrator.New(reg, tc.opts)
			cfg := map[string]any{"command": "/bin/sh", "args": []string{"-c", waiter}}
			for k, v := range tc.driverCfg {
				cfg[k] = v
			}
			c := tc.c
			c.ID, c.Prompt, c.Driver = "wait", "p", &lux.PluginRef{Name: subprocess.Name, Config: cfg}
			m := &clock.Manual{}
			type result struct {
				res *record.Run
				err error
			}
			ran := make(chan result, 1)
			go func() {
				res, err := o.Run(clock.With(context.Background(), m), &c)
				ran <- result{res, err}
			}()
			ctx, cancel := ctxtest.Safety(t)
			defer cancel()
			require.NoError(t, m.WaitScheduled(ctx, tc.armed), "the run's timers were never armed")
			m.Advance(300 * time.Millisecond)
			got := <-ran
			require.NoError(t, got.err, "a run at its limit is a result, not an error")
			res := got.res
			assert.Equal(t, lux.ExitTimeout, res.Metadata.ExitReason)
			assert.Contains(t, res.Metadata.Reason, tc.wantReason)
			assert.NotEqual(t, record.VerdictPass, res.Verdict(), "a run that did not end done never passes")
		})
	}
}

// A descendant that left the agent's process group and keeps rewriting a
// file is stopped before the artifacts are collected: the file the record
// keeps is the one artifacts.json hashed, and it no longer changes.
func TestArtifactsAreCollectedOnlyOnceNothingCanChangeThem(t *testing.T) {
	if proc.HostContainment() == proc.ContainGroup {
		t.Skip("only the process group is contained here: an escapee survives, as documented")
	}
	reg := lux.NewRegistry()
	require.NoError(t, reg.RegisterDriver(subprocess.Plugin()))
	o := orchestrator.New(reg, orchestrator.Options{RunsRoot: filepath.Join(t.TempDir(), "runs")})
	res, err := o.Run(context.Background(), &lux.Case{ID: "rewriter", Prompt: "p", Driver: &lux.PluginRef{Name: subprocess.Name,
		Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo '{"type":"ready","agentId":"a"}'
( setsid sh -c 'n=0; while :; do n=$((n+1)); echo $n > result.txt.tmp; mv result.txt.tmp result.txt; done' </dev/null >/dev/null 2>&1 & )
while [ ! -s result.txt ]; do :; done
echo '{"type":"done"}'`}}}})
	require.NoError(t, err)
	require.Equal(t, lux.ExitDone, res.Metadata.ExitReason, res.Metadata.Reason)
	var hashed string
	for _, a := range res.Artifacts {
		if a.Path == "result.txt" {
			hashed = a.SHA256
		}
	}
	require.NotEmpty(t, hashed, "artifacts %+v", res.Artifacts)
	data, err := os.ReadFile(filepath.Join(res.Dir, record.ArtifactsDir, "result.txt"))
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	assert.Equal(t, hashed, hex.EncodeToString(sum[:]), "the file changed after it was collected")
	g, _, err := o.Regrade(context.Background(), res.Dir, nil)
	require.NoError(t, err, "the evidence still matches")
	assert.True(t, g.EvidenceVerified)
}
