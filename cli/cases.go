package cli

import (
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/casefiles"
)

// CaseSuffix is how case files are named inside a directory of cases.
const CaseSuffix = casefiles.Suffix

// LoadCases reads the cases named by paths: a file is read whatever its
// name; a directory is searched recursively for *.case.json files (dot
// directories and node_modules skipped). With tags, only cases carrying at
// least one of them are kept (case-insensitive). Every unreadable or
// invalid file is reported at once, its path once followed by each of its
// problems; two cases with the same canonical id are an error.
func LoadCases(paths []string, tags []string) ([]*lux.Case, error) {
	return casefiles.Load(paths, tags)
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}
