package cli

import "github.com/luxeval/lux/record"

// resolveSuites resolves the suites named by args: "latest" and
// "label:NAME" become the suite directory under root they name (see
// record.ResolveSuite); any other argument is a directory, kept as given.
func resolveSuites(root string, args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		dir, err := record.ResolveSuite(root, a)
		if err != nil {
			return nil, err
		}
		out[i] = dir
	}
	return out, nil
}
