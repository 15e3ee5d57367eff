// Command fakecursor stands in for Cursor's agent CLI in tests. It checks
// the command line the way the CLI does, then replays a recorded
// stream-json file. Environment variables choose the behaviour:
//
//	FAKE_CURSOR_SCRIPT    the .jsonl file to print, line by line, with the
//	                      recorded workspace (/tmp/lux-ws) and session id
//	                      replaced by this run's, as the CLI reports them
//	FAKE_CURSOR_VERSION   what --version prints (default 2026.09.10-fake001)
//	FAKE_CURSOR_ARGV      a file to write {"args", "dir", "env"} to
//	FAKE_CURSOR_WRITE     files to create in the working directory: "a.txt=hi;b/c.txt=x"
//	FAKE_CURSOR_SYMLINK   symlinks to create there: "link=/etc/hostname"
//	FAKE_CURSOR_ORPHAN    spawn a detached worker (own session, like the
//	                      CLI's worker-server) and write its pid to this file
//	FAKE_CURSOR_STDERR    text to write to stderr after the script
//	FAKE_CURSOR_AFTER     "hang": ignore SIGTERM (from the start) and never exit after the script;
//	                      "usr1": exit only once SIGUSR1 comes, after the script
//	FAKE_CURSOR_EXIT      the exit code (default 0)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/luxeval/lux/internal/fakeproc"
)

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "worker-server" {
		fakeproc.Hang()
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		fmt.Println(envOr("FAKE_CURSOR_VERSION", "2026.09.10-fake001"))
		return
	}
	released := make(chan os.Signal, 1)
	if os.Getenv("FAKE_CURSOR_AFTER") == "usr1" {
		signal.Notify(released, syscall.SIGUSR1) // before a line is out
	}
	if os.Getenv("FAKE_CURSOR_AFTER") == "hang" {
		// From the start, not once the script is out: the harness may stop
		// the CLI as soon as it has read the last line.
		signal.Ignore(syscall.SIGTERM)
	}
	if path := os.Getenv("FAKE_CURSOR_ARGV"); path != "" {
		dir, _ := os.Getwd()
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		b, _ := json.Marshal(map[string]any{"args": args, "dir": dir, "env": env})
		must(os.WriteFile(path, b, 0o644))
	}
	checkArgs(args)
	// Like the CLI, read a piped stdin to its end before starting: an
	// open pipe nobody closes blocks the run here.
	if in, _ := io.ReadAll(os.Stdin); len(bytes.TrimSpace(in)) > 0 {
		fail("fakecursor: unexpected prompt on stdin")
	}

	if path := os.Getenv("FAKE_CURSOR_ORPHAN"); path != "" {
		self, err := os.Executable()
		must(err)
		w := exec.Command(self, "worker-server")
		w.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		must(w.Start())
		must(os.WriteFile(path, []byte(strconv.Itoa(w.Process.Pid)), 0o644))
		_ = w.Process.Release()
	}
	for _, spec := range list("FAKE_CURSOR_WRITE") {
		name, content, _ := strings.Cut(spec, "=")
		must(os.MkdirAll(filepath.Dir(name), 0o755))
		must(os.WriteFile(name, []byte(content), 0o644))
	}
	for _, spec := range list("FAKE_CURSOR_SYMLINK") {
		name, target, _ := strings.Cut(spec, "=")
		must(os.Symlink(target, name))
	}

	if path := os.Getenv("FAKE_CURSOR_SCRIPT"); path != "" {
		f, err := os.Open(path)
		must(err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		out := bufio.NewWriter(os.Stdout)
		cwd, _ := os.Getwd()
		cwdJSON, _ := json.Marshal(cwd)
		thisRun := strings.NewReplacer(
			`"/tmp/lux-ws`, strings.TrimSuffix(string(cwdJSON), `"`),
			"5d0c7e52-8b1a-4c7e-9a51-0f6b2d3c4e11", fmt.Sprintf("5d0c7e52-8b1a-4c7e-9a51-%012d", os.Getpid()),
		)
		for sc.Scan() {
			fmt.Fprintln(out, thisRun.Replace(sc.Text()))
			must(out.Flush())
		}
		must(sc.Err())
		f.Close()
	}
	if s := os.Getenv("FAKE_CURSOR_STDERR"); s != "" {
		fmt.Fprintln(os.Stderr, s)
	}
	switch os.Getenv("FAKE_CURSOR_AFTER") {
	case "hang":
		fakeproc.Hang()
	case "usr1":
		<-released
	}
	code, _ := strconv.Atoi(envOr("FAKE_CURSOR_EXIT", "0"))
	os.Exit(code)
}

// checkArgs fails the way the CLI does on a command line it rejects.
func checkArgs(args []string) {
	dash := slices.Index(args, "--")
	if dash < 0 || dash == len(args)-1 || strings.TrimSpace(strings.Join(args[dash+1:], " ")) == "" {
		fail("Error: No prompt provided for print mode")
	}
	flags := args[:dash]
	if !slices.Contains(flags, "-p") && !slices.Contains(flags, "--print") {
		fail("Error: expected print mode")
	}
	if i := slices.Index(flags, "--output-format"); i < 0 || i+1 >= len(flags) || flags[i+1] != "stream-json" {
		fail("Error: expected --output-format stream-json")
	}
	if i := slices.Index(flags, "--workspace"); i >= 0 {
		if i+1 >= len(flags) {
			fail("Error: --workspace needs a path")
		}
		if st, err := os.Stat(flags[i+1]); err != nil || !st.IsDir() {
			fail("Error: Workspace path does not exist: " + flags[i+1])
		}
	}
	trusted := false
	for _, f := range []string{"--trust", "--force", "-f", "--yolo"} {
		trusted = trusted || slices.Contains(flags, f)
	}
	if !trusted {
		fail("⚠ Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory")
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}

func list(key string) []string {
	var out []string
	for _, s := range strings.Split(os.Getenv(key), ";") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecursor:", err)
		os.Exit(3)
	}
}
