package luxtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luxeval/lux/compare"
)

// gate compares the suite in dir with the baseline suite base as `lux
// compare base dir` does, with opts, and fails t with the comparison's
// text when the gate fails; when it passes, the text is logged.
func gate(t *testing.T, base, dir string, opts compare.Options) {
	t.Helper()
	c, err := compare.Suites(t.Context(), base, dir, opts)
	if err != nil {
		t.Errorf("luxtest: comparing the suite with the baseline %s (options: Suite.Compare, and $%s for Vary): %v", base, EnvVary, err)
		return
	}
	var b strings.Builder
	if err := c.WriteText(&b); err != nil {
		t.Errorf("luxtest: writing the comparison with the baseline %s: %v", base, err)
		return
	}
	if c.Gate.Failed {
		hint := ""
		if c.Verdict == compare.NotComparable {
			hint = fmt.Sprintf("\nluxtest: to accept a difference made on purpose, name the field in $%s (comma-separated: %s=source,runtime) or Suite.Compare.Vary, as -vary does for lux compare", EnvVary, EnvVary)
		}
		t.Errorf("luxtest: the gate failed against the baseline %s (lux compare %s %s):\n%s%s", base, base, dir, b.String(), hint)
		return
	}
	t.Logf("luxtest: no regression against the baseline %s (lux compare %s %s):\n%s", base, base, dir, b.String())
}
