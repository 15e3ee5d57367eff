package compare

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSuitesBadInput(t *testing.T) {
	root := t.TempDir()
	good, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{summary: true})
	runDir := writeRunDir(t, root, run("", "hello"))

	withSummary := func(content string) string {
		dir, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{})
		require.NoError(t, os.WriteFile(filepath.Join(dir, record.SuiteSummaryFile), []byte(content), 0o600))
		return dir
	}
	summary := func(dir string) string { return filepath.Join(dir, record.SuiteSummaryFile) }
	truncated := withSummary(`{"suiteId": "x", "samples": [{"caseId": "a"`)
	corrupt := withSummary(`{"suiteId": "x", "samples": [nope]}`)
	wrongType := withSummary(`{"suiteId": "x", "samples": [{"caseId": "a"}, {"caseId": 7}]}`)
	notObject := withSummary(`[]`)
	empty := withSummary(" \n")
	notList := withSummary(`{"samples": {"caseId": "a"}}`)
	badTotals := withSummary(`{"totals": "all", "samples": []}`)

	noSummaryBadRun, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{runs: true})
	badRun := func() string {
		var m record.SuiteManifest
		require.NoError(t, record.ReadJSON(filepath.Join(noSummaryBadRun, record.SuiteFile), &m))
		p := filepath.Join(noSummaryBadRun, filepath.FromSlash(m.Items[0].RunDir), record.MetadataFile)
		require.NoError(t, os.WriteFile(p, []byte(`{"caseId": "x"`), 0o600))
		return p
	}()
	noSummaryBadManifest, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{})
	require.NoError(t, os.WriteFile(filepath.Join(noSummaryBadManifest, record.SuiteFile), []byte(`{"items": [{"caseId": "x", `), 0o600))

	tests := []struct {
		name string
		dir  string
		want []string
		is   error
	}{
		{"missing", filepath.Join(root, "nope"), []string{filepath.Join(root, "nope")}, os.ErrNotExist},
		{"not a record", t.TempDir(), []string{"has neither run.json nor suite.json"}, ErrNotRecord},
		{"a run", runDir, []string{runDir, "is a run directory, not a suite directory"}, ErrKindMismatch},
		{"truncated summary", truncated, []string{summary(truncated) + ": truncated JSON (ends after"}, nil},
		{"corrupt summary", corrupt, []string{summary(corrupt) + ": corrupt JSON in the value at byte 29: invalid character 'o' in literal null"}, nil},
		{"wrong type", wrongType, []string{summary(wrongType) + ": samples[1]: caseId must be string, got JSON number"}, nil},
		{"not an object", notObject, []string{summary(notObject) + ": the summary must be a JSON object"}, nil},
		{"empty", empty, []string{summary(empty) + ": empty file"}, nil},
		{"samples not a list", notList, []string{summary(notList) + ": samples: must be a list"}, nil},
		{"totals of the wrong type", badTotals, []string{summary(badTotals) + ": totals: must be record.Outcome, got JSON string"}, nil},
		{"run of a suite without summary", noSummaryBadRun, []string{badRun + ": truncated JSON"}, nil},
		{"manifest of a suite without summary", noSummaryBadManifest, []string{filepath.Join(noSummaryBadManifest, record.SuiteFile) + ": truncated JSON"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][2]string{{good, tt.dir}, {tt.dir, good}} {
				c, err := Suites(ctx, order[0], order[1], Options{})
				require.Error(t, err)
				assert.Nil(t, c)
				assert.True(t, strings.HasPrefix(err.Error(), "compare: "), err.Error())
				for _, w := range tt.want {
					assert.Contains(t, err.Error(), w)
				}
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
			}
		})
	}
}

func TestRunSetsBadInput(t *testing.T) {
	root := t.TempDir()
	good := writeRunDir(t, root, run("", "hello"))
	suite, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{summary: true})
	badCase := writeRunDir(t, root, run("", "badcase"))
	require.NoError(t, os.WriteFile(filepath.Join(badCase, record.CaseFile), []byte(`{"id": "badcase", "prompt": `), 0o600))

	_, err := RunSets(ctx, nil, []string{good}, Options{})
	assert.ErrorIs(t, err, ErrEmpty)
	assert.Contains(t, err.Error(), "side A")
	_, err = RunSets(ctx, []string{good}, []string{good, suite}, Options{})
	assert.ErrorIs(t, err, ErrKindMismatch)
	assert.Contains(t, err.Error(), suite+" is a suite directory")
	_, err = RunSets(ctx, []string{good}, []string{badCase}, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(badCase, record.CaseFile)+": truncated JSON")

	_, err = SuiteRecords(ctx, nil, &record.Suite{}, Options{})
	assert.ErrorIs(t, err, ErrEmpty)
	_, err = SuiteRecords(ctx, &record.Suite{Dir: "x"}, &record.Suite{}, Options{})
	assert.Contains(t, err.Error(), "suite x has neither a summary nor a manifest")
}

func TestSuitesCancelled(t *testing.T) {
	root := t.TempDir()
	a, _ := writeSuite(t, root, []spec{pass("x", "")}, suiteOpts{summary: true})
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Suites(cctx, a, a, Options{})
	assert.True(t, errors.Is(err, context.Canceled), err)
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"wilson", Options{Method: "wilson"}, []string{"Method: wilson does not apply to paired differences"}},
		{"unknown method", Options{Method: "magic"}, []string{`Method: unknown method "magic"`}},
		{"level", Options{Level: 1.5}, []string{"Level: confidence level out of range: got 1.5"}},
		{"resamples", Options{Resamples: -1}, []string{"Resamples: must lie in"}},
		{"tolerance", Options{PassRateTolerance: 1}, []string{"PassRateTolerance: must lie in [0, 1), got 1"}},
		{"vary case id", Options{Vary: []Field{FieldCaseID}}, []string{"Vary[0]: caseId cannot vary"}},
		{"vary unknown", Options{Vary: []Field{FieldRuntime, "color"}}, []string{`Vary[1]: unknown identity field "color"`}},
		{"gate without direction", Options{GateMetrics: []string{"toolCalls"}}, []string{`GateMetrics[0]: metric "toolCalls" has no direction`}},
		{"all at once", Options{Method: "wilson", Level: 2, Vary: []Field{"x"}}, []string{"Method:", "Level:", "Vary[0]:"}},
	}
	a, b := run("a", "x"), run("b", "x")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunRecords(a, b, tt.opts)
			require.Error(t, err)
			assert.ErrorIs(t, err, lux.ErrInvalidConfig)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			_, err = Suites(ctx, "unused", "unused", tt.opts)
			assert.ErrorIs(t, err, lux.ErrInvalidConfig, "options are checked before anything is read")
		})
	}
	s, err := Options{}.resolve()
	require.NoError(t, err)
	assert.Equal(t, DefaultMetrics(), s.metrics)
	s, err = Options{Metrics: []string{"toolCalls"}, GateMetrics: []string{"score", MetricPassRate}}.resolve()
	require.NoError(t, err)
	assert.Equal(t, []string{"score", MetricPassRate, "toolCalls"}, s.metrics, "gate metrics are always reported")
	s, err = Options{Metrics: []string{"toolCalls", "toolCalls", MetricPassRate}}.resolve()
	require.NoError(t, err)
	assert.Equal(t, []string{"toolCalls", MetricPassRate}, s.metrics, "each metric once")
}

// The level rule is stats.CheckLevel's: the same bad level gives the same
// text at the Level field, and the error matches stats.ErrLevel.
func TestOptionsLevelIsStatsRule(t *testing.T) {
	for _, level := range []float64{1.5, 0.4, -1, math.NaN()} {
		_, want := stats.CheckLevel(level)
		var se *stats.Error
		require.ErrorAs(t, want, &se)
		_, err := Options{Level: level}.resolve()
		require.Error(t, err)
		assert.Equal(t, "compare: options: "+lux.ErrInvalidConfig.Error()+": Level: "+se.Message(), err.Error())
		assert.ErrorIs(t, err, stats.ErrLevel)
	}
	s, err := Options{}.resolve()
	require.NoError(t, err)
	assert.Equal(t, stats.DefaultLevel, s.cfg.Level, "0 means the default")
}

// Whatever suite-summary.json holds, comparing reads it without panicking:
// an error naming the file, or a comparison.
func FuzzSuiteSummary(f *testing.F) {
	for _, seed := range []string{
		`{"suiteId":"s","totals":{"attempts":1},"samples":[{"caseId":"a","casePassed":true,"caseScore":1,"identityHash":"h","metrics":{"durationMs":5}}]}`,
		`{"cases":[{"caseId":"a","metrics":{"x":{"n":1}}}],"metrics":{},"samples":[]}`,
		`{"samples":[{"caseId":"a","metrics":null,"casePassed":null}]}`,
		`{"samples":[{"caseId":"a","exitReason":"error","metrics":{"x":1e308,"y":-1e308}}]}`,
		`[]`, ``, `{"samples":`, `{"samples":[1,2]}`, `{"other":[[[{}]]],"samples":[{}]}`,
	} {
		f.Add([]byte(seed))
	}
	root := f.TempDir()
	good, _ := writeSuite(f, root, []spec{pass("a", "")}, suiteOpts{summary: true})
	dir, _ := writeSuite(f, root, []spec{pass("a", "")}, suiteOpts{})
	f.Fuzz(func(t *testing.T, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, record.SuiteSummaryFile), data, 0o600))
		c, err := Suites(ctx, good, dir, Options{AllMetrics: true})
		if err != nil {
			assert.Contains(t, err.Error(), "compare: ")
			return
		}
		require.NotNil(t, c)
		var buf strings.Builder
		require.NoError(t, c.WriteText(&buf))
	})
}

// A caller changing the default metrics it was given changes no other
// comparison's.
func TestDefaultMetricsIsACopy(t *testing.T) {
	m := DefaultMetrics()
	m[0] = "changed"
	assert.Equal(t, MetricPassRate, DefaultMetrics()[0])
}
