package orchestrator

import (
	"context"
	"os"
	"strings"
)

// workingBranch is the git branch checked out in the working directory,
// or "" when there is none (not a repository, a detached HEAD, no git).
func workingBranch(ctx context.Context) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return gitBranch(ctx, wd)
}

// gitBranch is the branch checked out in the repository holding dir, or
// "" when git cannot tell or HEAD is detached.
func gitBranch(ctx context.Context, dir string) string {
	root := gitRoot(dir)
	if root == "" {
		return ""
	}
	out, ok := git(ctx, root, "symbolic-ref", "--quiet", "--short", "HEAD")
	if !ok {
		return ""
	}
	return strings.TrimSpace(string(out))
}
