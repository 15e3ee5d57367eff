package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/luxeval/lux/orchestrator"
	"github.com/luxeval/lux/sandbox"
)

// sandboxFlags are -sandbox and -require-sandbox.
type sandboxFlags struct {
	level, require string
}

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.level, "sandbox", "auto", "how each agent is confined: auto (the strongest the kernel offers), "+levelNames()+" (see the README's Isolation section)")
	fs.StringVar(&f.require, "require-sandbox", "", "refuse to run an agent below this sandbox level: "+levelNames())
}

func levelNames() string {
	var names []string
	for _, l := range sandbox.Levels() {
		names = append(names, string(l))
	}
	return strings.Join(names, ", ")
}

// options sets opts.Sandbox from the flags. A required level this machine
// cannot give is an error naming what the kernel refused; a level below
// the strongest available is said on stderr.
func (f *sandboxFlags) options(opts *orchestrator.Options, stderr io.Writer) error {
	level, err := sandbox.ParseLevel(f.level)
	if err != nil {
		return fmt.Errorf("-sandbox: %v", err)
	}
	if level != sandbox.LevelDefault {
		opts.Sandbox.Level = level // auto leaves the project file's level
	}
	if f.require != "" {
		req, err := sandbox.ParseLevel(f.require)
		if err != nil || req == sandbox.LevelDefault {
			return fmt.Errorf("-require-sandbox: want one of %s, got %q", levelNames(), f.require)
		}
		opts.Sandbox.Require = req
	}
	if err := opts.Sandbox.Validate(); err != nil {
		return fmt.Errorf("-sandbox: %v", err)
	}
	avail, refused, _ := sandbox.Available()
	if req := opts.Sandbox.Require; req != sandbox.LevelDefault && !avail.AtLeast(req) {
		return fmt.Errorf("-require-sandbox: level %s is required, but this machine gives only %s: %s", req, avail, strings.Join(refused, "; "))
	}
	switch {
	case level != sandbox.LevelDefault && !level.AtLeast(avail):
		fmt.Fprintf(stderr, "lux: sandbox: agents run at level %s (-sandbox), below the %s this machine offers\n", level, avail)
	case level == sandbox.LevelDefault && !avail.AtLeast(sandbox.LevelLandlock):
		fmt.Fprintf(stderr, "lux: sandbox: agents run at level %s: %s\n", avail, strings.Join(refused, "; "))
	}
	return nil
}

// sandboxDiagnostic starts a confined shell as a run's agent would be and
// says what level it got, and what the kernel refused.
func sandboxDiagnostic(c sandbox.Config) orchestrator.Diagnostic {
	d := orchestrator.Diagnostic{ID: "sandbox", Status: orchestrator.StatusPass}
	in, err := sandbox.SelfTest(c)
	if err != nil {
		d.Status, d.Message = orchestrator.StatusFail, err.Error()
		return d
	}
	d.Message = "agents run at level " + string(in.Level)
	if in.LandlockABI > 0 {
		d.Message += fmt.Sprintf(" (Landlock ABI %d)", in.LandlockABI)
	}
	if in.ProcessLimit != "" {
		d.Message += ", process limit by " + in.ProcessLimit
	}
	if avail, _, _ := sandbox.Available(); !in.Level.AtLeast(avail) && in.Level.AtLeast(sandbox.LevelLandlock) {
		d.Message += fmt.Sprintf("; %s is available (-sandbox %s)", avail, avail)
	}
	var detail []string
	if in.Network != "" {
		detail = append(detail, "network: "+in.Network)
	}
	if in.Seccomp != "" {
		detail = append(detail, "seccomp denies: "+in.Seccomp)
	}
	if len(in.Refused) > 0 {
		detail = append(detail, "refused: "+strings.Join(in.Refused, "; "))
	}
	d.Detail = strings.Join(detail, "\n")
	if !in.Level.AtLeast(sandbox.LevelLandlock) {
		d.Status = orchestrator.StatusWarn
	}
	return d
}

// projectSandbox takes the project file's sandbox into opts: its level
// and requirement unless -sandbox or -require-sandbox gave them, and its
// other settings; a requirement this machine cannot meet is an error.
func projectSandbox(opts *orchestrator.Options, file sandbox.Config, levelFlag, requireFlag bool) error {
	given := opts.Sandbox
	opts.Sandbox = file
	if levelFlag || file.Level == sandbox.LevelDefault {
		opts.Sandbox.Level = given.Level
	}
	if requireFlag || file.Require == sandbox.LevelDefault {
		opts.Sandbox.Require = given.Require
	}
	if err := opts.Sandbox.Validate(); err != nil {
		return fmt.Errorf("sandbox: %v", err)
	}
	avail, refused, _ := sandbox.Available()
	if req := opts.Sandbox.Require; req != sandbox.LevelDefault && !avail.AtLeast(req) {
		return fmt.Errorf("sandbox.require: level %s is required, but this machine gives only %s: %s", req, avail, strings.Join(refused, "; "))
	}
	return nil
}
