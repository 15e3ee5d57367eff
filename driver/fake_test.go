package driver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/internal/fakeproc"
)

// The test binary doubles as the fake agent: with LUX_DRIVER_FAKE set it
// runs the script in LUX_FAKE_SCRIPT instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("LUX_DRIVER_FAKE") {
	case "":
		os.Exit(m.Run())
	case "agent":
		runScript(os.Getenv("LUX_FAKE_SCRIPT"))
		fakeproc.Exit(0)
	case "sleeper":
		signal.Ignore(syscall.SIGTERM)
		fakeproc.Hang()
	}
}

// runScript interprets one command per line:
//
//	say TEXT     print TEXT on stdout
//	err TEXT     print TEXT on stderr
//	expect       read one stdin line, print "progress got:LINE"
//	await        read one stdin line, print nothing
//	readall      read stdin to EOF, print "progress stdin:TEXT"
//	big N        print a line of N bytes
//	spawn        start a background child that ignores SIGTERM, sharing
//	             stdout; print "progress pid:PID"
//	trapterm     ignore SIGTERM
//	hang         block until killed
//	exit CODE    exit
func runScript(script string) {
	in := bufio.NewReader(os.Stdin)
	for _, line := range strings.Split(script, "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "":
		case "say":
			fmt.Println(arg)
		case "err":
			fmt.Fprintln(os.Stderr, arg)
		case "expect":
			l, _ := in.ReadString('\n')
			fmt.Println("progress got:" + strings.TrimSpace(l))
		case "await":
			_, _ = in.ReadString('\n')
		case "readall":
			b, _ := io.ReadAll(in)
			fmt.Println("progress stdin:" + strings.TrimSpace(string(b)))
		case "big":
			n, _ := strconv.Atoi(arg)
			fmt.Println(strings.Repeat("x", n))
		case "spawn":
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), "LUX_DRIVER_FAKE=sleeper")
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			if err := c.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(9)
			}
			fmt.Printf("progress pid:%d\n", c.Process.Pid)
		case "trapterm":
			signal.Ignore(syscall.SIGTERM)
		case "hang":
			fakeproc.Hang()
		case "exit":
			code, _ := strconv.Atoi(arg)
			fakeproc.Exit(code)
		default:
			fmt.Fprintln(os.Stderr, "unknown script command", cmd)
			os.Exit(8)
		}
	}
}

// fakeSpec is a ProcessSpec running script in the fake agent.
func fakeSpec(t *testing.T, script ...string) driver.ProcessSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return driver.ProcessSpec{
		Path: exe,
		Env: driver.BuildEnv(false, map[string]string{
			"LUX_DRIVER_FAKE": "agent",
			"GORACE":          "atexit_sleep_ms=0",
			"LUX_FAKE_SCRIPT": strings.Join(script, "\n"),
		}),
	}
}

// textProtocol is a tiny line protocol for tests:
//
//	ready | progress ID | ask ID QUESTION | done | error REASON | bad
//
// Anything else is ignored. Answers are written as "answer ID TEXT".
type textProtocol struct{}

func (textProtocol) Parse(_ context.Context, line []byte, _ *driver.Stdin) ([]lux.Event, error) {
	verb, rest, _ := strings.Cut(string(line), " ")
	switch verb {
	case "ready":
		return []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "fake"}}}, nil
	case "progress":
		p := lux.NewProgress(rest, "note", nil)
		return []lux.Event{{Type: lux.EventProgress, Progress: &p}}, nil
	case "ask":
		id, q, _ := strings.Cut(rest, " ")
		return []lux.Event{{Type: lux.EventInterrupt, Interrupt: &lux.Interrupt{Kind: lux.Ask, ID: id, Question: q}}}, nil
	case "done":
		return []lux.Event{{Type: lux.EventDone, Done: &lux.Done{Turns: 1}}}, nil
	case "error":
		return []lux.Event{{Type: lux.EventError, Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: rest}}}, nil
	case "bad":
		return nil, fmt.Errorf("bad line %q", line)
	}
	return nil, nil
}

func (textProtocol) Answer(ctx context.Context, in lux.Interrupt, a lux.Answer, stdin *driver.Stdin) error {
	return stdin.WriteLine(ctx, []byte("answer "+a.ID+" "+a.Text))
}
