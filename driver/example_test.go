package driver_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// wordsProtocol reads a made-up format: "hello" is ready, "bye" is done,
// any other line is an agent message.
type wordsProtocol struct{}

func (wordsProtocol) Parse(_ context.Context, line []byte, _ *driver.Stdin) ([]lux.Event, error) {
	switch s := strings.TrimSpace(string(line)); s {
	case "hello":
		return []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "words"}}}, nil
	case "bye":
		return []lux.Event{{Type: lux.EventDone, Done: &lux.Done{}}}, nil
	default:
		p := lux.NewProgress("m", lux.KindAgentMessage, &lux.Message{Text: s})
		return []lux.Event{{Type: lux.EventProgress, Progress: &p}}, nil
	}
}

func (wordsProtocol) Answer(context.Context, lux.Interrupt, lux.Answer, *driver.Stdin) error {
	return fmt.Errorf("words: this agent never asks")
}

func Example() {
	ctx := context.Background()
	s, err := driver.StartSession(ctx, driver.SessionOptions{
		Process: driver.ProcessSpec{
			Path: "/bin/sh",
			Args: []string{"-c", `echo hello; echo "working on $TASK"; echo bye`},
			Env:  driver.BuildEnv(false, map[string]string{"PATH": driver.DefaultPath, "TASK": "the tests"}),
		},
		Protocol: wordsProtocol{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			break // io.EOF after the terminal event
		}
		switch ev.Type {
		case lux.EventProgress:
			fmt.Println("progress:", ev.Progress.Message.Text)
		default:
			fmt.Println(ev.Type)
		}
	}
	_ = s.Quiesce(ctx)
	// Output:
	// ready
	// progress: working on the tests
	// done
}

// A relative command path in a case's driver config is relative to the
// case file's directory, like its fixtures; a bare name is looked up on
// PATH.
func ExampleCommandPath() {
	fmt.Println(driver.CommandPath("/home/me/evals/cases", "../agent/agent.sh"))
	fmt.Println(driver.CommandPath("/home/me/evals/cases", "claude"))
	fmt.Println(driver.CommandPath("", "./agent.sh"))
	// Output:
	// /home/me/evals/agent/agent.sh
	// claude
	// ./agent.sh
}
