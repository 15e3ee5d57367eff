package assertion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/proc"
	"github.com/luxeval/lux/internal/safefs"
)

// Defaults of command-exits-zero.
const (
	DefaultCommandTimeout = 2 * time.Minute
	// MaxCommandOutput is how many characters of each output stream the
	// result keeps.
	MaxCommandOutput = 4000
)

// MinimalEnvNames are the variables command-exits-zero passes from the
// grading process's environment when they are set; inheritEnv adds others.
var MinimalEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR",
}

// inheritEnv is a list of variable names, or true for the whole environment.
type inheritEnv struct {
	All   bool
	Names []string
}

// UnmarshalJSON reads a list of names, true, or false.
func (e *inheritEnv) UnmarshalJSON(b []byte) error {
	var all bool
	if err := json.Unmarshal(b, &all); err == nil {
		*e = inheritEnv{All: all}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return errors.New("must be a list of variable names, or true for the whole environment")
	}
	*e = inheritEnv{Names: names}
	return nil
}

// MarshalJSON writes the form it was read from.
func (e inheritEnv) MarshalJSON() ([]byte, error) {
	if e.All {
		return []byte("true"), nil
	}
	return json.Marshal(e.Names)
}

type commandConfig struct {
	Command    string            `json:"command"`
	Cwd        string            `json:"cwd,omitempty"`
	In         string            `json:"in,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	InheritEnv inheritEnv        `json:"inheritEnv,omitzero"`
	Timeout    lux.Duration      `json:"timeout,omitempty"`
	// ShareCopy names a copy of the workspace (or run directory) shared
	// by the command assertions of the case that give the same name, in
	// order; without it each command runs on a fresh copy.
	ShareCopy string `json:"shareCopy,omitempty"`
}

func commandExitsZero() *lux.AssertionPlugin {
	return define("command-exits-zero",
		"Passes when `sh -c command`, run in cwd (relative to the workspace, or the run directory with in: run) in its own process group with a minimal environment, exits 0 within timeout (default 2m). It runs on a disposable copy of the workspace (run directory), fresh for each command unless assertions name the same shareCopy, and what it changes there is discarded.",
		func(c *commandConfig, p *lux.Problems) {
			if strings.TrimSpace(c.Command) == "" {
				p.AddFix("command", "required", "give a shell command such as \"go test ./...\"")
			}
			if strings.ContainsRune(c.Command, 0) {
				p.Add("command", "contains a NUL byte")
			}
			checkIn(&c.In, p)
			if c.Cwd != "" {
				checkPath("cwd", c.Cwd, c.In, p)
			}
			if strings.ContainsRune(c.ShareCopy, 0) {
				p.Add("shareCopy", "contains a NUL byte")
			}
			for _, k := range sortedKeys(c.Env) {
				if k == "" || strings.ContainsAny(k, "=\x00") {
					p.Addf("env", "%q is not a variable name", k)
				}
				if strings.ContainsRune(c.Env[k], 0) {
					p.Add("env."+k, "contains a NUL byte")
				}
			}
			for i, k := range c.InheritEnv.Names {
				if k == "" || strings.ContainsAny(k, "=\x00") {
					p.Addf(fmt.Sprintf("inheritEnv[%d]", i), "%q is not a variable name", k)
				}
			}
			switch {
			case c.Timeout < 0:
				p.Addf("timeout", "must not be negative, got %s", c.Timeout)
			case c.Timeout == 0:
				c.Timeout = lux.Duration(DefaultCommandTimeout)
			}
		},
		runCommand)
}

func runCommand(ctx context.Context, c *commandConfig, run *lux.Run) (lux.Result, error) {
	orig, err := rootOf(run, c.In)
	if err != nil {
		return lux.Result{}, fmt.Errorf("assertion: command-exits-zero: %w", err)
	}
	// Grading never writes into the evidence: the command runs on a copy.
	if _, err := orig.DirPath("."); err != nil {
		return lux.Result{}, fmt.Errorf("assertion: command-exits-zero: %w", err)
	}
	copyDir, release, err := commandCopy(run, orig, c.In, c.ShareCopy)
	if err != nil {
		return lux.Result{}, fmt.Errorf("assertion: command-exits-zero: %w", err)
	}
	defer release()
	root := safefs.Root{Dir: copyDir, Name: orig.Name}
	dir, err := root.DirPath(".")
	if c.Cwd != "" {
		dir, err = root.DirPath(c.Cwd)
	}
	if err != nil {
		if c.Cwd != "" && refused(err) {
			r := refusedResult(root, c.Cwd, c.In, err)
			r.Comment = "cwd: " + r.Comment
			return r, nil
		}
		return lux.Result{}, fmt.Errorf("assertion: command-exits-zero: %w", err)
	}
	res, err := proc.Run(ctx, proc.Spec{
		Path:      "/bin/sh",
		Args:      []string{"-c", c.Command},
		Dir:       dir,
		Env:       commandEnv(os.Environ(), c),
		Timeout:   c.Timeout.D(),
		MaxOutput: MaxCommandOutput * utf8.UTFMax,
	})
	if err != nil {
		// Could not start it, or the grading was cancelled: no verdict.
		return lux.Result{}, fmt.Errorf("assertion: command-exits-zero: %q: %w", c.Command, err)
	}
	stdout, outCut := clipOutput(res.Stdout, res.StdoutTruncated)
	stderr, errCut := clipOutput(res.Stderr, res.StderrTruncated)
	detail := map[string]any{
		"command":         c.Command,
		"exitCode":        res.Code,
		"signal":          res.Signal,
		"durationMs":      res.Duration.Milliseconds(),
		"timedOut":        res.TimedOut,
		"stdout":          stdout,
		"stderr":          stderr,
		"stdoutTruncated": outCut,
		"stderrTruncated": errCut,
	}
	if res.TimedOut {
		return Fail(fmt.Sprintf("command timed out after %s", c.Timeout), detail), nil
	}
	comment := fmt.Sprintf("'%s' exited %d", clip(c.Command, 200), res.Code)
	if res.Signal != "" {
		comment += fmt.Sprintf(" (signal %s)", res.Signal)
	}
	return verdict(res.Exited && res.Code == 0, comment, detail), nil
}

// commandEnv is the environment of the command: the minimal variables and
// those named by inheritEnv (every variable with inheritEnv: true) taken
// from host, then env.
func commandEnv(host []string, c *commandConfig) []string {
	keep := map[string]bool{}
	for _, k := range MinimalEnvNames {
		keep[k] = true
	}
	for _, k := range c.InheritEnv.Names {
		keep[k] = true
	}
	vars := map[string]string{}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (c.InheritEnv.All || keep[k]) {
			vars[k] = v
		}
	}
	if _, ok := vars["PATH"]; !ok {
		vars["PATH"] = proc.DefaultPath
	}
	for k, v := range c.Env {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for _, k := range sortedKeys(vars) {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// clipOutput decodes up to MaxCommandOutput characters of b.
func clipOutput(b []byte, truncated bool) (string, bool) {
	b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	if utf8.RuneCount(b) <= MaxCommandOutput {
		return string(b), truncated
	}
	return string([]rune(string(b))[:MaxCommandOutput]), true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
