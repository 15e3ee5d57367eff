package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/record"
)

func reportCommand() command {
	return command{
		name:    "report",
		args:    "[flags] LEDGER   (an experiment directory under <runs-root>/.experiments)",
		summary: "report an experiment's decision, gates, evidence, effects and spend",
		doc: `Print an experiment's report as Markdown: the decision in one sentence, the
gates with their intervals, each candidate's evidence, the paired effects
against the baseline, the spend against the budget, and how to reproduce
and apply it. The decision is recomputed from the recorded units; a ledger
whose units do not support its recorded decision is refused. -out writes
the report to a file, refusing to replace one without -force.`,
		setup: reportFlags,
	}
}

func reportFlags(fs *flag.FlagSet) action {
	asJSON := jsonFlag(fs, "the report (lux.experiment-report/v1)")
	out := fs.String("out", "", "write the report to this file instead of stdout")
	force := fs.Bool("force", false, "with -out, replace an existing file")
	return func(ctx context.Context, e *env, args []string) int {
		if len(args) != 1 {
			return e.usageError("report", "give one experiment directory, got %d arguments", len(args))
		}
		rep, err := experiment.BuildReport(ctx, args[0])
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		if *out == "" {
			if *asJSON {
				return e.writeJSON(rep)
			}
			if err := rep.WriteMarkdown(e.stdout); err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			return ExitOK
		}
		var buf bytes.Buffer
		sub := &env{reg: e.reg, stdout: &buf, stderr: e.stderr}
		if *asJSON {
			if code := sub.writeJSON(rep); code != ExitOK {
				return code
			}
		} else if err := rep.WriteMarkdown(&buf); err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		return writeOut(e, *out, rep.Dir, buf.Bytes(), *force)
	}
}

// writeOut writes data to path, refusing to replace a file without
// force, a symlink, or a path inside the ledger.
func writeOut(e *env, path, ledger string, data []byte, force bool) int {
	abs, err := filepath.Abs(path)
	if err != nil {
		e.errorf("report: -out %s: %v", path, err)
		return ExitUsage
	}
	if rel, err := filepath.Rel(ledger, abs); err == nil && !strings.HasPrefix(rel, "..") {
		e.errorf("report: -out %s is inside the experiment's ledger, which stays as the experiment left it; write it elsewhere", path)
		return ExitUsage
	}
	info, err := os.Lstat(abs)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		e.errorf("report: -out %s is a symlink; give the file itself", path)
		return ExitUsage
	case err == nil && !force:
		e.errorf("report: %s exists; add -force to replace it", path)
		return ExitUsage
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		e.errorf("report: -out %s: %v", path, err)
		return ExitUsage
	}
	if err := record.WriteFileAtomic(abs, data); err != nil {
		e.errorf("report: %v", err)
		return ExitUsage
	}
	e.errorf("report written to %s", path)
	return ExitOK
}
