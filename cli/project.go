package cli

import (
	"flag"
	"os"

	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/project"
)

// projectFlags read the project file (lux.json) and pick a profile. The
// file gives defaults; a flag given on the command line wins over it.
type projectFlags struct {
	fs      *flag.FlagSet
	config  string
	profile string
	file    *project.File // read once, by load
}

func (f *projectFlags) register(fs *flag.FlagSet, profiles bool) {
	f.fs = fs
	fs.StringVar(&f.config, "config", "", "project file (default: the "+project.FileName+" of the working directory or its nearest parent, up to the repository root)")
	if profiles {
		fs.StringVar(&f.profile, "profile", "", "apply this profile of the project file (its driver, answerer, harness model and environment)")
	}
}

// load reads the project file: -config, else the lux.json project.Find
// finds from the working directory, else none (the defaults). It reads
// the file once per command, and says on stderr which file it used, so
// that a command run from a subdirectory names the project it ran in.
func (f *projectFlags) load(e *env) (*project.File, int) {
	if f.file != nil {
		return f.file, ExitOK
	}
	var (
		file *project.File
		err  error
	)
	if f.config != "" {
		file, err = project.Load(f.config)
	} else {
		wd, werr := os.Getwd()
		if werr != nil {
			e.errorf("%v", werr)
			return nil, ExitUsage
		}
		file, err = project.Find(wd)
	}
	if err != nil {
		e.errorf("%v", err)
		return nil, ExitUsage
	}
	if file.Path != "" {
		e.errorf("project file %s", file.Path)
	}
	f.file = file
	return file, ExitOK
}

// set reports whether the flag name was given on the command line.
func (f *projectFlags) set(name string) bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			given = true
		}
	})
	return given
}

// defaultCases sets the cases to run, when none are given, to the
// project's casesRoot.
func (f *projectFlags) defaultCases(e *env, args *[]string) int {
	file, code := f.load(e)
	if code == ExitOK && len(*args) == 0 && file.CasesRoot != "" {
		*args = []string{file.Resolve(file.CasesRoot)}
	}
	return code
}

// apply fills what the command line left unset in opts from the project
// file and its profile. The project's driver and answerer (the profile's,
// else defaultDriver and defaultAnswerer) are defaults, for the cases that
// name none; -driver and -answerer replace what every case names (see
// orchestrator.Choose). A profile that names a driver (or answerer) and
// the flag that replaces it are both a choice made for this run: lux
// refuses to pick one.
func (f *projectFlags) apply(e *env, opts *orchestrator.Options) int {
	file, code := f.load(e)
	if code != ExitOK {
		return code
	}
	p, err := file.Options(f.profile)
	if err != nil {
		e.errorf("-profile: %v", err)
		return ExitUsage
	}
	for _, k := range []struct {
		kind, flag string
		given      bool
	}{{"driver", opts.OptionNames["Driver"], opts.Driver != nil}, {"answerer", opts.OptionNames["Answerer"], opts.Answerer != nil}} {
		if k.given && file.ProfileSets(f.profile, k.kind) {
			e.errorf("%s and -profile %s both choose the %s (%s): %s replaces the %s of every case, so the profile's would never run; drop %s to run the profile's, or choose a profile that names no %s",
				k.flag, f.profile, k.kind, file.Source(k.kind, f.profile), k.flag, k.kind, k.flag, k.kind)
			return ExitUsage
		}
	}
	if !f.set("runs-root") && p.RunsRoot != "" {
		opts.RunsRoot = p.RunsRoot
	}
	if !f.set("j") && p.Concurrency > 0 {
		opts.Concurrency = p.Concurrency
	}
	opts.DefaultDriver, opts.DefaultAnswerer = p.DefaultDriver, p.DefaultAnswerer
	if opts.OptionNames != nil {
		opts.OptionNames["DefaultDriver"] = file.Source("driver", f.profile)
		opts.OptionNames["DefaultAnswerer"] = file.Source("answerer", f.profile)
	}
	if !f.set("environment") && p.Environment != nil {
		opts.Environment = p.Environment
	}
	opts.Harness = p.Harness
	opts.Hooks = p.Hooks
	opts.ProjectDir = p.ProjectDir
	opts.Queue = p.Queue
	if err := projectSandbox(opts, p.Sandbox, f.set("sandbox"), f.set("require-sandbox")); err != nil {
		e.errorf("%s: %v", file.Path, err)
		return ExitUsage
	}
	return ExitOK
}

// projectRunsRoot is where a command that reads records looks: root, when
// -runs-root was given, else the runs root of the project file found from
// the working directory (see project.Find), named on stderr, else root.
func projectRunsRoot(e *env, fs *flag.FlagSet, root string) string {
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "runs-root" })
	if given {
		return root
	}
	f := projectFlags{fs: fs}
	file, code := f.load(e)
	if code != ExitOK || file.Path == "" {
		return root
	}
	o, err := file.Options("")
	if err != nil || o.RunsRoot == "" {
		return root
	}
	return o.RunsRoot
}
