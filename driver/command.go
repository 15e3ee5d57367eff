package driver

import (
	"context"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/command"
	"github.com/luxeval/lux/record"
)

// Command identification lives in internal/command, which the orchestrator
// shares for provenance and preflight; these are its exported names.

const (
	// VersionTimeout bounds a CLI's --version in ProbeVersion.
	VersionTimeout = command.VersionTimeout
	// MaxVersionOutput is how much of a CLI's --version output is read.
	MaxVersionOutput = command.MaxVersionOutput
	// MaxHashBytes is the largest executable IdentifyCommand hashes;
	// a larger one is recorded without a hash.
	MaxHashBytes = command.MaxHashBytes
)

// CommandPath returns the command a driver config names, with a relative
// path resolved against dir, the directory of the case file that names it
// (as the case's fixtures are): "./agent.sh" or "../bin/agent" in
// cases/hello.case.json is cases/agent.sh or bin/agent. A bare name (looked
// up on PATH), an absolute path, or any name when dir is "" (an inline
// case, or a driver given by the harness rather than the case) is returned
// unchanged. Every driver resolves its commands through it, and so do the
// orchestrator's preflight and provenance, so a command is found the same
// way by each.
func CommandPath(dir, name string) string { return command.Path(dir, name) }

// PathLike reports whether a configured command names a file (an absolute
// path, or one holding a slash: "./agent.sh", "../agent/agent.py") rather
// than a program to look up on PATH ("claude").
func PathLike(name string) bool { return command.PathLike(name) }

// ResolveCommand returns the absolute path of the executable name names:
// a path-like name (see PathLike) is a file, relative to this process's
// working directory (resolve a case's relative command with CommandPath
// first), and must be an executable regular file; a bare name is looked up
// on this process's PATH.
func ResolveCommand(name string) (string, error) { return command.Resolve(name) }

// FindCommand returns the absolute path of the executable to start for
// the command name as configured: a path-like name relative to dir, the
// case file's directory (StartInfo.CaseDir), else the working directory;
// a bare name on searchPath first — the PATH the agent gets, when the
// config sets one — then on the harness's PATH. A driver that looks a
// bare name up on a PATH of its own declares it in lux.Runtime.SearchPath,
// so that the orchestrator, which finds the command the same way to
// record its identity, records the executable the driver starts.
func FindCommand(dir, name, searchPath string) (string, error) {
	return command.Find(dir, name, searchPath)
}

// IdentifyCommand resolves name (see ResolveCommand) and identifies it by
// content, never running it: Path is the executable with symlinks
// resolved, SHA256 the hash of its content (up to MaxHashBytes). A
// lux-jsonl agent or any script is identified this way, so editing it
// changes every run's identity. Path is empty when the command is not
// found. Results are remembered per version of the file.
func IdentifyCommand(name string) record.CommandInfo { return command.Identify(name) }

// IdentifyCLI identifies name as a known agent CLI (claude, codex,
// cursor-agent): by its version, asked with ProbeVersion in a sandbox, and
// by its content hash only when it gives no version. Use it only for a
// command listed in lux.Runtime.Versioned.
func IdentifyCLI(ctx context.Context, name string) record.CommandInfo {
	return command.IdentifyCLI(ctx, name)
}

// Identify identifies each of rt's commands: those in rt.Versioned with
// IdentifyCLI, the others with IdentifyCommand.
func Identify(ctx context.Context, rt lux.Runtime) []record.CommandInfo {
	return command.IdentifyRuntime(ctx, rt)
}

// ProbeVersion runs `<path> --version` for a known agent CLI and returns
// the release number it printed, normalized (see version.Normalize),
// and the line it came from when that line reads as a version line and
// nothing else (version.Line). The CLI runs sandboxed: in a fresh
// temporary directory that is also its HOME and TMPDIR, with an
// environment of only PATH (the CLI's own directory, then DefaultPath),
// HOME, TMPDIR and LANG=C — none of this process's variables, so no API
// key — in its own process group, stopped after VersionTimeout, with
// MaxVersionOutput bytes of output read. Output that holds no version is
// discarded: ("", "").
func ProbeVersion(ctx context.Context, path string) (version, raw string) {
	return command.ProbeVersion(ctx, path)
}

// Scripts returns the arguments that name a script for the command to run:
// those that are absolute paths of regular files ("/opt/agent/agent.py" in
// "python3 /opt/agent/agent.py"). A driver lists them in
// lux.Runtime.Scripts so that the run's identity holds their content hash.
// A relative argument is not listed: the agent resolves it against its
// working directory, the workspace, whose files the fixtures hash covers.
func Scripts(args []string) []string { return command.Scripts(args) }
