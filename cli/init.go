package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/internal/safefs"
)

func initCommand() command {
	return command{
		name:    "init",
		args:    "[-experiment] [-json] [DIR]",
		summary: "scaffold a project that runs at once: lux.json, an example agent, cases, fixtures",
		doc: `Write a project into DIR (default: the working directory) that runs at once
with 'lux run': lux.json (the runs root, the cases, the default driver), an
example agent (agent/agent.sh, a shell script that speaks the lux line
protocol and follows its prompt literally: replace it with yours), two cases
and their fixtures, and a .gitignore line for the runs root (appended to an
existing .gitignore unless it already has it). With -experiment, also an
experiment: a subject (experiment/subject/AGENTS.md, the instructions the
agent follows), train, validation and test cases, and a campaign
(experiment/house-style.experiment.json) whose variant fixes the subject;
'lux experiment -plan' accepts it.

Nothing is overwritten: a file that exists is skipped. Nothing is followed:
a path of the scaffold that is a symlink, or goes through one, is refused
and named, and so is a DIR that is one. One line per file says what was
created, skipped, appended or refused (-json: schema lux.init/v1). Exit
status 1 when something was refused.`,
		setup: func(fs *flag.FlagSet) action {
			experiment := fs.Bool("experiment", false, "also scaffold an experiment: a subject, train/validation/test cases and a campaign")
			asJSON := jsonFlag(fs, "what was created, skipped or refused (schema lux.init/v1)")
			return func(ctx context.Context, e *env, args []string) int {
				if len(args) > 1 {
					return e.usageError("init", "want at most one directory, got %d arguments", len(args))
				}
				dir := "."
				if len(args) == 1 {
					dir = args[0]
				}
				rep, err := scaffold(dir, *experiment)
				if err != nil {
					e.errorf("init: %v", err)
					return ExitUsage
				}
				if *asJSON {
					if code := e.writeJSON(rep); code != ExitOK {
						return code
					}
				} else {
					rep.writeText(e.stdout, dir, *experiment)
				}
				if rep.Refused > 0 {
					if !*asJSON {
						e.errorf("init: %d path(s) refused: lux does not write through symlinks; remove them or choose another directory", rep.Refused)
					}
					return ExitFailed
				}
				return ExitOK
			}
		},
	}
}

// InitReport is what `lux init -json` prints (schema lux.init/v1): every
// path of the scaffold and what was done with it.
type InitReport struct {
	Schema  string      `json:"schema"` // "lux.init/v1"
	Dir     string      `json:"dir"`    // the project directory, absolute
	Entries []InitEntry `json:"entries"`
	// Created, Skipped and Refused count the entries by action (an
	// appended .gitignore counts as created).
	Created int `json:"created"`
	Skipped int `json:"skipped"`
	Refused int `json:"refused"`
}

// InitEntry is one path of the scaffold.
type InitEntry struct {
	Path   string `json:"path"`   // relative to Dir, slash-separated
	Action string `json:"action"` // "created", "appended", "skipped" or "refused"
	Reason string `json:"reason,omitempty"`
}

// Init actions.
const (
	InitCreated  = "created"
	InitAppended = "appended"
	InitSkipped  = "skipped"
	InitRefused  = "refused"
)

// scaffold writes the project of `lux init` into dir (created when missing),
// never overwriting a file and never writing through a symlink. An error
// is returned only when dir itself cannot be used; each path of the
// scaffold that could not be written is an entry of the report.
func scaffold(dir string, experiment bool) (*InitReport, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	switch info, err := os.Lstat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symlink: lux init does not follow it (name the directory it points to)", dir)
	case !info.IsDir():
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	w := initWriter{check: safefs.Root{Dir: abs, Name: "project directory"}, root: root, rep: &InitReport{Schema: "lux.init/v1", Dir: abs}}
	for _, f := range initFiles(experiment) {
		w.write(f)
	}
	w.gitignore()
	return w.rep, nil
}

// initWriter writes the scaffold in one project directory.
type initWriter struct {
	check safefs.Root // inspects paths without following symlinks
	root  *os.Root    // writes, never leaving the directory
	rep   *InitReport
}

func (w *initWriter) add(path, action, reason string) {
	w.rep.Entries = append(w.rep.Entries, InitEntry{Path: path, Action: action, Reason: reason})
	switch action {
	case InitCreated, InitAppended:
		w.rep.Created++
	case InitSkipped:
		w.rep.Skipped++
	case InitRefused:
		w.rep.Refused++
	}
}

// inspect reports whether path exists; a path that is or goes through a
// symlink, or that cannot be inspected, is refused (and ok is false).
func (w *initWriter) inspect(path string) (info fs.FileInfo, ok bool) {
	info, err := w.check.Stat(path)
	switch {
	case err == nil:
		return info, true
	case errors.Is(err, fs.ErrNotExist):
		return nil, true
	case errors.Is(err, safefs.ErrSymlink):
		w.add(path, InitRefused, "is or goes through a symlink, which lux does not follow")
	default:
		w.add(path, InitRefused, err.Error())
	}
	return nil, false
}

func (w *initWriter) write(f initFile) {
	info, ok := w.inspect(f.path)
	switch {
	case !ok:
		return
	case info != nil && f.dir && info.IsDir():
		w.add(f.path, InitSkipped, "exists")
		return
	case info != nil && f.dir:
		w.add(f.path, InitRefused, "exists and is not a directory")
		return
	case info != nil:
		w.add(f.path, InitSkipped, "exists")
		return
	}
	name := filepath.FromSlash(f.path)
	if f.dir {
		if err := w.root.Mkdir(name, 0o755); err != nil {
			w.add(f.path, InitRefused, err.Error())
			return
		}
		w.add(f.path, InitCreated, "")
		return
	}
	// O_EXCL: a file (or symlink) that appeared since the check is never
	// written through.
	file, err := w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(f.mode))
	if err == nil {
		_, err = io.WriteString(file, f.content)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		w.add(f.path, InitRefused, err.Error())
		return
	}
	w.add(f.path, InitCreated, "")
}

// gitignore adds the runs root to .gitignore: a new file, or a line
// appended to an existing one that does not ignore it yet.
func (w *initWriter) gitignore() {
	const path, line = ".gitignore", initRunsRoot + "/"
	info, ok := w.inspect(path)
	switch {
	case !ok:
		return
	case info == nil:
		w.write(initFile{path: path, mode: 0o644, content: line + "\n"})
		return
	case !info.Mode().IsRegular():
		w.add(path, InitRefused, "is not a regular file")
		return
	}
	data, err := w.check.ReadFile(path, 1<<20)
	if err != nil {
		w.add(path, InitRefused, err.Error())
		return
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(l) {
		case initRunsRoot, line, "/" + initRunsRoot, "/" + line:
			w.add(path, InitSkipped, "already ignores "+line)
			return
		}
	}
	add := line + "\n"
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		add = "\n" + add
	}
	file, err := w.root.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = io.WriteString(file, add)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		w.add(path, InitRefused, err.Error())
		return
	}
	w.add(path, InitAppended, "added "+line)
}

func (r *InitReport) writeText(w io.Writer, dir string, experiment bool) {
	for _, en := range r.Entries {
		if en.Reason != "" {
			fmt.Fprintf(w, "%-8s %s (%s)\n", en.Action, en.Path, en.Reason)
		} else {
			fmt.Fprintf(w, "%-8s %s\n", en.Action, en.Path)
		}
	}
	fmt.Fprintf(w, "\n%d created, %d skipped, %d refused in %s\n", r.Created, r.Skipped, r.Refused, r.Dir)
	if r.Refused > 0 {
		return
	}
	for _, en := range r.Entries {
		if en.Path == "lux.json" && en.Action == InitSkipped {
			fmt.Fprintln(w, "Note: the existing lux.json was kept; the scaffolded cases name no driver, so its defaultDriver runs them (the scaffold's runs agent/agent.sh).")
		}
	}
	cd := ""
	if filepath.Clean(dir) != "." {
		cd = "cd " + shellQuote(dir) + " && "
	}
	fmt.Fprintf(w, "Next: %slux run   (runs cases/ against agent/agent.sh; run lux in the project directory)\n", cd)
	if experiment {
		fmt.Fprintf(w, "      lux experiment -plan %s, then lux experiment %s\n", initCampaignPath, initCampaignPath)
	}
}
