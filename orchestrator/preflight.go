package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/command"
)

// Status is the outcome of one preflight check.
type Status string

// The preflight statuses.
const (
	StatusPass Status = "pass"
	StatusWarn Status = "warn" // works, but something may surprise
	StatusFail Status = "fail" // running would fail
)

// Diagnostic is one preflight finding.
type Diagnostic struct {
	ID      string `json:"id"` // what was checked: "runs-root", "case:<id>", "command:<name>", ...
	Status  Status `json:"status"`
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"` // the fix, or the full list of problems
}

// String formats d for people: its status, what was checked and the
// finding, with the detail (the fix) on an indented second line.
func (d Diagnostic) String() string {
	s := fmt.Sprintf("%-4s %s: %s", d.Status, d.ID, d.Message)
	if d.Detail != "" {
		s += "\n     " + d.Detail
	}
	return s
}

// Healthy reports whether no diagnostic failed.
func Healthy(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Status == StatusFail {
			return false
		}
	}
	return true
}

// Preflight checks, without running any agent, that cases can run here:
// the runs root is writable, the environment declaration encodes, each
// case is valid (see Validate), no two cases share an id, and every
// command their drivers launch is found (on PATH or as a path) — with its
// version when it reports one, and the driver's install hint when it is
// missing.
func (o *Orchestrator) Preflight(ctx context.Context, cases []*lux.Case) []Diagnostic {
	var out []Diagnostic
	out = append(out, o.checkRunsRoot())
	if o.envErr != nil {
		out = append(out, Diagnostic{ID: "environment", Status: StatusFail, Message: o.envErr.Error()})
	}
	seen := map[string]int{}
	type cmdRef struct {
		name, path, hint, driver string // path: name resolved against the case's directory
		dir, searchPath          string // where the driver finds it (see command.Find)
		cli                      bool
	}
	var commands []cmdRef
	cmdSeen := map[string]bool{}
	for i, c := range cases {
		if c == nil {
			out = append(out, Diagnostic{ID: fmt.Sprintf("cases[%d]", i), Status: StatusFail, Message: "nil case"})
			continue
		}
		id := "case:" + c.CanonicalID()
		if j, dup := seen[c.CanonicalID()]; dup {
			out = append(out, Diagnostic{ID: id, Status: StatusWarn,
				Message: fmt.Sprintf("cases[%d] and cases[%d] share the id %q", j, i, c.CanonicalID()),
				Detail:  "their runs are recorded, counted and compared as one case; give each its own id"})
		} else {
			seen[c.CanonicalID()] = i
		}
		p, err := o.plan(c)
		if err != nil {
			out = append(out, Diagnostic{ID: id, Status: StatusFail, Message: "invalid case", Detail: err.Error()})
			continue
		}
		out = append(out, Diagnostic{ID: id, Status: StatusPass,
			Message: fmt.Sprintf("valid: driver %s, %d assertion(s)", p.driverName, len(p.checks))})
		for _, cmd := range p.runtime.Commands {
			path := command.Path(p.caseDir, cmd)
			if key := path + "\x00" + p.runtime.SearchPath; !cmdSeen[key] {
				cmdSeen[key] = true
				commands = append(commands, cmdRef{cmd, path, p.runtime.InstallHint, p.driverName, p.caseDir, p.runtime.SearchPath,
					slices.Contains(p.runtime.Versioned, cmd)})
			}
		}
	}
	for _, c := range commands {
		info := o.prov.command(ctx, c.dir, c.name, c.searchPath, c.cli)
		d := Diagnostic{ID: "command:" + c.name}
		switch {
		case info.Path == "" && c.path != c.name:
			d.Status = StatusFail
			d.Message = fmt.Sprintf("%s (launched by driver %s; relative to the case file's directory: %s) is not an executable file", c.name, c.driver, c.path)
		case info.Path == "" && strings.ContainsRune(c.name, '/'):
			d.Status = StatusFail
			d.Message = fmt.Sprintf("%s (launched by driver %s) is not an executable file", c.name, c.driver)
		case info.Path == "":
			d.Status = StatusFail
			d.Message = fmt.Sprintf("%s (launched by driver %s) is not found on PATH", c.name, c.driver)
			d.Detail = c.hint
			if d.Detail == "" {
				d.Detail = "install it, or give the driver its full path"
			}
		case !c.cli:
			// Never run to ask: a lux-jsonl agent is identified by its content.
			d.Status = StatusPass
			d.Message = found(c.name, info.Path)
			if info.SHA256 != "" {
				d.Message += " (sha256 " + info.SHA256[:12] + ")"
			}
		case info.Version == "":
			d.Status = StatusWarn
			d.Message = found(c.name, info.Path) + ", but its version is unknown"
			d.Detail = fmt.Sprintf("`%s --version` printed no version; runs identify it by its content hash instead", c.name)
		default:
			d.Status = StatusPass
			d.Message = found(c.name, info.Path) + ": " + info.Version
		}
		out = append(out, d)
	}
	return out
}

// found says where a command was found, naming the path only when it is
// not the name.
func found(name, path string) string {
	if path == name {
		return name + " found"
	}
	return name + " found at " + path
}

func (o *Orchestrator) checkRunsRoot() Diagnostic {
	root := o.opts.RunsRoot
	d := Diagnostic{ID: "runs-root"}
	if err := os.MkdirAll(root, 0o700); err != nil {
		d.Status, d.Message = StatusFail, fmt.Sprintf("cannot create the runs root %s: %v", root, unwrapPathErr(err))
		return d
	}
	f, err := os.CreateTemp(root, ".preflight-*")
	if err != nil {
		d.Status, d.Message = StatusFail, fmt.Sprintf("cannot write under the runs root %s: %v", root, unwrapPathErr(err))
		return d
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	abs, _ := filepath.Abs(root)
	d.Status, d.Message = StatusPass, "records go to "+abs
	return d
}
