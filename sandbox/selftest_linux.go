package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SelfTest starts a shell through the helper at level c asks for and
// checks that it can write its workspace and, under Landlock, cannot
// write beside it and runs under the seccomp filter: the helper hook is linked into this program and the
// kernel applies what it was asked. It returns the sandbox's Info.
func SelfTest(c Config) (Info, error) {
	dir, err := os.MkdirTemp("", "lux-sandbox-selftest-")
	if err != nil {
		return Info{}, err
	}
	defer os.RemoveAll(dir)
	ws, scratch, outside := filepath.Join(dir, "workspace"), filepath.Join(dir, "scratch"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, scratch, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return Info{}, err
		}
	}
	r := &Run{Config: c, Workspace: ws, Scratch: scratch, Protect: []string{dir}}
	// In a network namespace of its own, the shell sees one interface:
	// lo (/proc/net/dev names each with a colon).
	cmd := exec.Command("/bin/sh", "-c", `: > "$1/ok" || exit 3; (: > "$2/escaped") 2>/dev/null
grep '^Seccomp:' /proc/self/status > "$1/seccomp"
[ "$3" != netns ] || [ "$(grep -c : /proc/net/dev)" = 1 ] || exit 4`, "sh", ws, outside, netnsArg(r.plan().level))
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	h, err := r.Wrap(cmd, Extra{})
	if err != nil {
		return Info{}, err
	}
	defer h.Release()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err = h.Start(cmd); err == nil {
		err = cmd.Wait()
	}
	in := h.Info()
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 4 {
		return in, fmt.Errorf("sandbox: the confined shell sees the host's network interfaces: the network namespace is not in force")
	}
	if err != nil {
		return in, fmt.Errorf("sandbox: the helper failed: %v: %s", err, strings.TrimSpace(out.String()))
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		return in, fmt.Errorf("sandbox: the confined shell could not write its workspace: %s", strings.TrimSpace(out.String()))
	}
	_, err = os.Stat(filepath.Join(outside, "escaped"))
	if in.Level.AtLeast(LevelLandlock) && err == nil {
		return in, fmt.Errorf("sandbox: the confined shell wrote outside its workspace: Landlock is not in force")
	}
	// Seccomp: 2 is filter mode.
	if b, _ := os.ReadFile(filepath.Join(ws, "seccomp")); in.Seccomp != "" && strings.Join(strings.Fields(string(b)), " ") != "Seccomp: 2" {
		return in, fmt.Errorf("sandbox: the confined shell has no seccomp filter (%q): the filter is not in force", strings.TrimSpace(string(b)))
	}
	return in, nil
}

func netnsArg(l Level) string {
	if l.AtLeast(LevelNetns) {
		return "netns"
	}
	return ""
}
