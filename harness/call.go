package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/luxeval/lux/internal/proc"
)

// maxOutput caps what a call keeps of each of the CLI's output streams.
const maxOutput = 4 << 20

// stderrShown is how much of a failed CLI's stderr an error quotes.
const stderrShown = 400

// invocation is one run of a provider's CLI.
type invocation struct {
	command string
	args    []string
	input   string
	env     []string // added to the environment, after this process's and cfg.Env
	// failure, when set, extracts the CLI's own message from its stdout
	// when it fails ("" when there is none there).
	failure func(stdout []byte) string
	// configVar names the variable that points the CLI at its config
	// directory (CLAUDE_CONFIG_DIR, CODEX_HOME); a fresh one is made unless
	// the config asks for the user's own.
	configVar string
}

// run runs inv in a fresh temporary directory, removed afterwards, with
// the timeout of cfg, and returns the CLI's stdout. A timeout, a non-zero
// exit or a signal is an error quoting the CLI's stderr.
func run(ctx context.Context, cfg Config, inv invocation) ([]byte, error) {
	dir, err := os.MkdirTemp("", "lux-harness-*")
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	defer os.RemoveAll(dir)
	work, tmp := filepath.Join(dir, "work"), filepath.Join(dir, "tmp")
	for _, d := range []string{work, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
	}
	env := os.Environ()
	if !cfg.UserConfig && inv.configVar != "" {
		conf := filepath.Join(dir, "config")
		if err := os.Mkdir(conf, 0o700); err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
		env = append(env, inv.configVar+"="+conf)
	}
	env = append(env, "TMPDIR="+tmp)
	env = append(env, inv.env...)
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+cfg.Env[k])
	}
	res, err := proc.Run(ctx, proc.Spec{
		Path: inv.command, Args: inv.args, Dir: work, Env: dedupEnv(env),
		Input: []byte(inv.input), Timeout: cfg.Timeout.D(), MaxOutput: maxOutput,
	})
	name := filepath.Base(inv.command)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("harness: %s call stopped: %w", name, context.Cause(ctx))
	case err != nil:
		return nil, fmt.Errorf("harness: %s could not start: %w (set the harness command to the CLI's path, or install it)", name, unwrapExec(err))
	case res.TimedOut:
		return nil, fmt.Errorf("harness: model call timed out after %s (%s); raise the harness timeout", cfg.Timeout, name)
	case !res.Exited:
		return nil, fmt.Errorf("harness: %s was killed by %s: %s", name, res.Signal, inv.message(res))
	case res.Code != 0:
		return nil, fmt.Errorf("harness: %s exited %d: %s", name, res.Code, inv.message(res))
	}
	return res.Stdout, nil
}

// message is the start of a failed CLI's message: what failure finds in
// its stdout, else its stderr, else its stdout.
func (inv invocation) message(res proc.Result) string {
	msg := ""
	if inv.failure != nil {
		msg = strings.TrimSpace(inv.failure(res.Stdout))
	}
	if msg == "" {
		msg = strings.TrimSpace(string(res.Stderr))
	}
	if msg == "" {
		msg = strings.TrimSpace(string(res.Stdout))
	}
	if msg == "" {
		return "(no output)"
	}
	return Clamp(msg, stderrShown)
}

func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dedupEnv keeps the last value of each variable.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if last[k] == i {
			out = append(out, kv)
		}
	}
	return out
}

// Clamp cuts s to at most n bytes, on a rune boundary, and marks the cut
// with "… [truncated]". Persona and rubric clamp every string they put in
// a prompt with it.
func Clamp(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… [truncated]"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
