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

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/experiment"
	"github.com/luxeval/lux/optimize"
	"github.com/luxeval/lux/record"
	"github.com/luxeval/lux/report"
)

func reportCommand() command {
	return command{
		name:    "report",
		args:    "[flags] LEDGER | -html OUT.html [flags] SUITE | RUN | A B | LEDGER",
		summary: "report an experiment (Markdown, JSON), or write an HTML page of a suite, run, comparison or experiment",
		doc: `Print an experiment's report as Markdown: the decision in one sentence, the
gates with their intervals, each candidate's evidence, the paired effects
against the baseline, the spend against the budget, and how to reproduce
and apply it. The decision is recomputed from the recorded units; a ledger
whose units do not support its recorded decision is refused. -out writes
the report to a file, refusing to replace one without -force.

With -html OUT.html, write one self-contained HTML page instead (styles and
script embedded, nothing fetched: it opens from disk or as a CI artifact),
refusing to replace a file without -force. Of a suite directory: the totals
and a sortable, filterable table of the cases with a pass/fail strip each,
and the details of up to -runs runs (those that did not pass first). Of a
run directory: its trajectory, assertions, artifacts and provenance. Of two
suite directories A and B: the comparison of B with A as lux compare makes
it (the same flags), with a forest plot of the paired effects, the flipped
cases and the paired views (two runs side by side: assertions,
trajectories aligned by step, workspace diff) of up to 20 changed cases. Of an
experiment's ledger: its decision, gates, and a forest plot of each
candidate's effects against the baseline per profile and split, and the
spend against the budget. With -labels DATASET (lux annotate writes it), the
details of each run show that run's labels beside its grading, each
disagreement marked. The exit status is 0 once the page is written,
whatever it shows.`,
		setup: reportFlags,
	}
}

func reportFlags(fs *flag.FlagSet) action {
	asJSON := jsonFlag(fs, "the report (lux.experiment-report/v1)")
	out := fs.String("out", "", "write the report to this file instead of stdout")
	force := fs.Bool("force", false, "with -out or -html, replace an existing file")
	htmlOut := fs.String("html", "", "write a self-contained HTML page to this file")
	runs := fs.Int("runs", 0, "with -html, how many runs' details a suite page embeds (default 50)")
	labelsPath := fs.String("labels", "", "with -html, show on each run's details the labels of this dataset (lux annotate writes it) beside the grading")
	options := comparisonFlags(fs)
	var root string
	runsRootFlag(fs, &root)
	return func(ctx context.Context, e *env, args []string) int {
		if *htmlOut != "" {
			if *asJSON || *out != "" {
				return e.usageError("report", "-html writes a page; it does not go with -json or -out")
			}
			args, err := resolveSuites(root, args)
			if err != nil {
				e.errorf("report: %v", err)
				return ExitUsage
			}
			set, err := loadLabels(*labelsPath)
			if err != nil {
				e.errorf("report: %v", err)
				return ExitUsage
			}
			return htmlReport(ctx, e, *htmlOut, *force, report.Options{MaxEmbeddedRuns: *runs, Labels: set}, options, args)
		}
		if *labelsPath != "" {
			return e.usageError("report", "-labels goes with -html")
		}
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
			if dir := optimize.SearchOf(rep.Dir); dir != "" {
				if err := optimize.WriteLineageMarkdown(e.stdout, dir); err != nil {
					e.errorf("%v", err)
					return ExitUsage
				}
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
		} else if dir := optimize.SearchOf(rep.Dir); dir != "" {
			if err := optimize.WriteLineageMarkdown(&buf, dir); err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
		}
		return writeOut(e, *out, rep.Dir, buf.Bytes(), *force)
	}
}

// loadLabels reads the label dataset at path for report.Options.Labels;
// nil without a path.
func loadLabels(path string) (*report.LabelSet, error) {
	if path == "" {
		return nil, nil
	}
	return report.LoadLabels(path)
}

// htmlReport writes the HTML page of a suite, a run, a comparison of two
// suites or an experiment's ledger to out.
func htmlReport(ctx context.Context, e *env, out string, force bool, opts report.Options, comparison func() compare.Options, args []string) int {
	var (
		page   any
		ledger string
	)
	switch len(args) {
	case 1:
		kind, err := compare.DirKind(args[0])
		switch {
		case err == nil && kind == compare.KindSuite:
			p, err := report.Suite(ctx, args[0], opts)
			if err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			page = p
		case err == nil:
			p, err := report.Run(args[0], opts)
			if err != nil {
				e.errorf("%v", err)
				return ExitUsage
			}
			page = p
		default:
			rep, lerr := experiment.BuildReport(ctx, args[0])
			if lerr != nil {
				e.errorf("report: %s is not a suite, a run or an experiment's ledger: %v", args[0], lerr)
				return ExitUsage
			}
			ep := experimentPage(rep)
			ep.EmbedPairs(opts)
			page, ledger = ep, rep.Dir
		}
	case 2:
		for _, dir := range args {
			if kind, err := compare.DirKind(dir); err == nil && kind == compare.KindRun {
				return e.usageError("report", "%s is a run directory: -html compares two suites (lux compare A B compares two runs)", dir)
			}
		}
		c, err := compare.Suites(ctx, args[0], args[1], comparison())
		if err != nil {
			e.errorf("%v", err)
			return ExitUsage
		}
		page = report.ComparisonOf(c, opts)
	default:
		return e.usageError("report", "-html takes a suite, a run or an experiment directory, or two suite directories; got %d arguments", len(args))
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, page); err != nil {
		e.errorf("%v", err)
		return ExitUsage
	}
	return writeOut(e, out, ledger, buf.Bytes(), force)
}

// writeOut writes data to path, refusing to replace a file without
// force, a symlink, or a path inside the ledger.
func writeOut(e *env, path, ledger string, data []byte, force bool) int {
	abs, err := filepath.Abs(path)
	if err != nil {
		e.errorf("report: -out %s: %v", path, err)
		return ExitUsage
	}
	if ledger != "" {
		if rel, err := filepath.Rel(ledger, abs); err == nil && !strings.HasPrefix(rel, "..") {
			e.errorf("report: %s is inside the experiment's ledger, which stays as the experiment left it; write it elsewhere", path)
			return ExitUsage
		}
	}
	info, err := os.Lstat(abs)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		e.errorf("report: %s is a symlink; give the file itself", path)
		return ExitUsage
	case err == nil && !force:
		e.errorf("report: %s exists; add -force to replace it", path)
		return ExitUsage
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		e.errorf("report: %s: %v", path, err)
		return ExitUsage
	}
	// A page or report is meant to be shared: readable by others, as the
	// umask allows (records stay private).
	if err := (record.Writer{Sync: true, Perm: 0o644}).WriteFile(abs, data); err != nil {
		e.errorf("report: %v", err)
		return ExitUsage
	}
	e.errorf("report written to %s", path)
	return ExitOK
}
