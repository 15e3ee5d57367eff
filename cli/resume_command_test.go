package cli

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command printed to finish an interrupted suite carries every flag
// that chose what the runs were: a resume without the profile, the project
// file, the sandbox or the executor would run the rest of the suite
// differently from its first part.
func TestResumeCommandKeepsWhatChoseTheRuns(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f runFlags
	f.register(fs)
	require.NoError(t, fs.Parse([]string{
		"-config", "ci/lux.json", "-profile", "fast", "-sandbox", "landlock+netns", "-require-sandbox", "landlock",
		"-executor", "temporal://h:7233/linux", "-j", "4", "cases",
	}))
	got := f.resumeCommand("/runs/.suites/s1", fs.Args())
	assert.Equal(t, "lux run -resume /runs/.suites/s1 -config ci/lux.json -profile fast -sandbox landlock+netns -require-sandbox landlock -executor temporal://h:7233/linux -j 4 cases", got)

	// Defaults add nothing.
	fs = flag.NewFlagSet("run", flag.ContinueOnError)
	var d runFlags
	d.register(fs)
	require.NoError(t, fs.Parse([]string{"cases"}))
	assert.Equal(t, "lux run -resume /runs/.suites/s1 cases", d.resumeCommand("/runs/.suites/s1", fs.Args()))
}
