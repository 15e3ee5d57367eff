package cli_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// lux run -junit writes the suite as JUnit XML: a testcase per run, a
// failure per fail, an error per run without a verdict.
func TestRunWritesJUnit(t *testing.T) {
	p := newProject(t)
	reg := withVerdicts(t, p)
	out := filepath.Join(p.dir, "junit.xml")
	code, stdout, errOut := run(t, reg, "run", "-q", "-junit", out, "-runs-root", p.runs, p.cases)
	require.Equal(t, 1, code, "%s\n%s", stdout, errOut)

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Cases    []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	require.Equal(t, 3, s.Tests)
	require.Equal(t, 1, s.Failures)
	require.Equal(t, 1, s.Errors)
	require.Equal(t, "a-pass", s.Cases[0].Classname)
	require.Equal(t, "repetition 1", s.Cases[0].Name)
	require.Nil(t, s.Cases[0].Failure)
	require.NotNil(t, s.Cases[1].Failure)
	require.Contains(t, s.Cases[1].Failure.Message, "✗ readme: ")
	require.NotNil(t, s.Cases[2].Error)
	require.Contains(t, s.Cases[2].Error.Message, "! review: could not grade")
}
