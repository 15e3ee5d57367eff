// Package project reads a project's lux.json: where its cases and runs
// live, the default driver and answerer, the harness model that persona
// and rubric use, the environment declaration, and named profiles that
// change any of those for one run of the suite (lux run -profile NAME).
//
//	{
//	  "runsRoot": ".lux-runs",
//	  "casesRoot": "cases",
//	  "defaultDriver": {"name": "claude-code", "config": {"permissionMode": "acceptEdits"}},
//	  "defaultAnswerer": {"name": "persona"},
//	  "harness": {"provider": "claude-code", "model": "claude-haiku-4-5"},
//	  "environment": {"image": "ci-runner:2026-11"},
//	  "profiles": {
//	    "codex": {"driver": {"name": "codex"}, "harness": {"provider": "codex"}}
//	  }
//	}
//
// The file is decoded strictly: an unknown field is an error naming the
// file, the field and the fields that are known. Relative paths are
// relative to the file's directory. A profile's harness fields override
// the project's as harness.Inherit says (another provider drops the
// project's model); its driver, answerer and environment replace the
// project's.
//
// The driver and answerer of the file (the profile's, else
// defaultDriver and defaultAnswerer) are defaults: they run the cases
// that name none, and merge under a case naming the same plugin. The
// command line's -driver and -answerer override them and every case's
// own; orchestrator.Choose applies the rule, and "Which driver
// and answerer run" in docs/cli.md is its table.
package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/sandbox"
)

// FileName is the project file Find looks for.
const FileName = "lux.json"

// ErrUnknownProfile reports a profile the file does not declare.
var ErrUnknownProfile = errors.New("project: unknown profile")

// File is a project file.
type File struct {
	// RunsRoot is where records go; default ".lux-runs" beside the file.
	RunsRoot string `json:"runsRoot,omitempty"`
	// CasesRoot is what `lux run` runs when given no cases.
	CasesRoot       string              `json:"casesRoot,omitempty"`
	DefaultDriver   *lux.PluginRef      `json:"defaultDriver,omitempty"`
	DefaultAnswerer *lux.PluginRef      `json:"defaultAnswerer,omitempty"`
	Harness         *harness.Config     `json:"harness,omitempty"`
	Environment     json.RawMessage     `json:"environment,omitempty"`
	Concurrency     int                 `json:"concurrency,omitempty"`
	Profiles        map[string]*Profile `json:"profiles,omitempty"`
	// Hooks are lifecycle hooks around every suite and run, by the name
	// they are registered under from Go (see orchestrator.Options.Hooks).
	Hooks []lux.PluginRef `json:"hooks,omitempty"`
	// Sandbox chooses how agents are confined (level, require, limits,
	// connectPorts, allowHosts, readOnly, readWrite; see docs/isolation.md);
	// -sandbox and -require-sandbox override its level and requirement.
	Sandbox *sandbox.Config `json:"sandbox,omitempty"`

	// Path is the file read, absolute; empty for the defaults.
	Path string `json:"-"`
}

// Profile changes the project's defaults for one suite run.
type Profile struct {
	Driver      *lux.PluginRef  `json:"driver,omitempty"`
	Answerer    *lux.PluginRef  `json:"answerer,omitempty"`
	Harness     json.RawMessage `json:"harness,omitempty"`
	Environment json.RawMessage `json:"environment,omitempty"`
	// Queue names where a distributed suite's runs go (a Temporal task
	// queue served by the workers of a machine class or of an agent CLI
	// version; see orchestrator.Options.Queue). Empty: the executor's
	// own. A local suite ignores it.
	Queue string `json:"queue,omitempty"`
}

// Find reads the project file of dir: the lux.json of dir or of its
// nearest parent, as the go command finds go.mod, so that a command run
// from a subdirectory of the project uses the project's file (and its
// runs root). The search stops at the root of the git repository holding
// dir (a directory with a .git entry, whose lux.json is still read), so
// that a file above the repository, in the home directory say, never
// applies to it; outside a repository it goes up to the filesystem root.
// With no file found it returns an empty File (the defaults).
func Find(dir string) (*File, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	for d := abs; ; {
		path := filepath.Join(d, FileName)
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.IsDir():
			return Load(path)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("project: %w", err)
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return &File{}, nil // the repository's root: the project ends here
		}
		parent := filepath.Dir(d)
		if parent == d {
			return &File{}, nil
		}
		d = parent
	}
}

// Load reads and validates the project file at path.
func Load(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	f := &File{}
	if err := lux.DecodeConfig(data, f); err != nil {
		return nil, fmt.Errorf("project: %s: %w", path, err)
	}
	f.Path = abs
	var p lux.Problems
	if f.Harness != nil {
		f.Harness.Validate(&p, "harness", true)
	}
	if f.Concurrency < 0 {
		p.Addf("concurrency", "must be at least 1, got %d", f.Concurrency)
	}
	for _, name := range f.ProfileNames() {
		prof := f.Profiles[name]
		at := "profiles." + name
		if prof == nil {
			p.AddFix(at, "is null", "give an object with driver, answerer, harness or environment")
			continue
		}
		if len(prof.Harness) > 0 {
			var h harness.Config
			if err := lux.DecodeConfig(prof.Harness, &h); err != nil {
				p.Merge(at+".harness", err)
			} else {
				h.Validate(&p, at+".harness", true)
			}
		}
	}
	for field, ref := range map[string]*lux.PluginRef{"defaultDriver": f.DefaultDriver, "defaultAnswerer": f.DefaultAnswerer} {
		if ref != nil && strings.TrimSpace(ref.Name) == "" {
			p.AddFix(field+".name", "required", "name a registered plugin")
		}
	}
	for i, ref := range f.Hooks {
		if strings.TrimSpace(ref.Name) == "" {
			p.AddFix(fmt.Sprintf("hooks[%d].name", i), "required", "name a hook plugin registered with Registry.RegisterHook")
		}
	}
	if err := p.Err(lux.ErrInvalidConfig); err != nil {
		return nil, fmt.Errorf("project: %s: %w", path, err)
	}
	return f, nil
}

// ProfileNames returns the profiles' names, sorted.
func (f *File) ProfileNames() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// dir is the directory relative paths are relative to.
func (f *File) dir() string {
	if f.Path == "" {
		return ""
	}
	return filepath.Dir(f.Path)
}

// Resolve returns path made relative to the file's directory, unless it is
// absolute or empty.
func (f *File) Resolve(path string) string {
	if path == "" || filepath.IsAbs(path) || f.dir() == "" {
		return path
	}
	return filepath.Join(f.dir(), path)
}

// Options returns the orchestrator options of the project with the named
// profile applied ("" for none). Fields the file does not set are left at
// their zero value, the orchestrator's default.
func (f *File) Options(profile string) (orchestrator.Options, error) {
	var o orchestrator.Options
	if f.RunsRoot != "" {
		o.RunsRoot = f.Resolve(f.RunsRoot)
	} else if f.Path != "" {
		o.RunsRoot = filepath.Join(f.dir(), ".lux-runs")
	}
	o.ProjectDir = f.dir()
	o.Concurrency = f.Concurrency
	o.DefaultDriver, o.DefaultAnswerer = f.DefaultDriver, f.DefaultAnswerer
	o.Hooks = f.Hooks
	if f.Sandbox != nil {
		if err := f.Sandbox.Validate(); err != nil {
			return o, fmt.Errorf("project: %s: sandbox: %w", f.Path, err)
		}
		o.Sandbox = *f.Sandbox
		o.Sandbox.ReadOnly, o.Sandbox.ReadWrite = f.resolveAll(f.Sandbox.ReadOnly), f.resolveAll(f.Sandbox.ReadWrite)
	}
	var h json.RawMessage
	if f.Harness != nil {
		var err error
		if h, err = json.Marshal(f.Harness); err != nil {
			return o, fmt.Errorf("project: %s: harness: %w", f.Path, err)
		}
	}
	env := f.Environment
	if profile != "" {
		prof, ok := f.Profiles[profile]
		if !ok {
			known := "it declares none"
			if names := f.ProfileNames(); len(names) > 0 {
				known = "known: " + strings.Join(names, ", ")
			}
			where := f.Path
			if where == "" {
				where = "no " + FileName + " was found"
			}
			return o, fmt.Errorf("%w %q (%s; %s)", ErrUnknownProfile, profile, where, known)
		}
		if prof.Driver != nil {
			o.DefaultDriver = prof.Driver
		}
		if prof.Answerer != nil {
			o.DefaultAnswerer = prof.Answerer
		}
		if len(prof.Harness) > 0 {
			var err error
			if h, err = harness.Inherit(h, prof.Harness); err != nil {
				return o, fmt.Errorf("project: %s: profiles.%s.harness: %w", f.Path, profile, err)
			}
		}
		if len(prof.Environment) > 0 {
			env = prof.Environment
		}
		o.Queue = prof.Queue
	}
	if len(h) > 0 {
		o.Harness = h
	}
	if len(env) > 0 {
		o.Environment = env
	}
	return o, nil
}

// ProfileSets reports whether the named profile sets the driver or the
// answerer (kind).
func (f *File) ProfileSets(profile, kind string) bool {
	prof := f.Profiles[profile]
	switch {
	case profile == "" || prof == nil:
		return false
	case kind == "driver":
		return prof.Driver != nil
	case kind == "answerer":
		return prof.Answerer != nil
	}
	return false
}

// Source names where the project's default driver or answerer (kind)
// comes from with the named profile ("" for none) applied, for messages:
// "profiles.ci.driver in /p/lux.json", "defaultDriver in /p/lux.json".
func (f *File) Source(kind, profile string) string {
	where := FileName
	if f.Path != "" {
		where = f.Path
	}
	if f.ProfileSets(profile, kind) {
		return "profiles." + profile + "." + kind + " in " + where
	}
	return "default" + strings.ToUpper(kind[:1]) + kind[1:] + " in " + where
}

// resolveAll is Resolve of each path.
func (f *File) resolveAll(paths []string) []string {
	if paths == nil {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = f.Resolve(p)
	}
	return out
}
