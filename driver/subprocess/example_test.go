package subprocess_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver/subprocess"
)

func Example() {
	// Any program that prints lux-jsonl events is an agent; this one is a
	// shell script that asks one question, reports the answer line it
	// read on stdin, and reports its usage.
	agent := `
echo '{"type":"ready","agentId":"shell-agent"}'
echo "working on: $LUX_PROMPT"
echo '{"type":"interrupt","kind":"ask","id":"q1","question":"Which file?"}'
read answer
echo "{\"type\":\"progress\",\"id\":\"p1\",\"kind\":\"answer-seen\",\"payload\":$answer}"
echo '{"type":"done","summary":{"usage":{"input":12,"output":3},"cost":0.001}}'
`
	cfg, err := subprocess.Plugin().Parse(json.RawMessage(
		`{"command": "/bin/sh", "args": ["-c", ` + fmt.Sprintf("%q", agent) + `], "idleTimeout": "30s"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	workspace, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(workspace)

	ctx := context.Background()
	s, err := cfg.Start(ctx, lux.StartInfo{Prompt: "fix the tests", Workspace: workspace, RunDir: workspace, Stderr: io.Discard})
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
		case lux.EventReady:
			fmt.Println("ready:", ev.Ready.AgentID)
		case lux.EventInterrupt:
			fmt.Println("asked:", ev.Interrupt.Question)
			_ = s.Respond(ctx, lux.Answer{Kind: lux.Ask, ID: ev.Interrupt.ID, Text: "main.go"})
		case lux.EventProgress:
			if ev.Progress.Kind == lux.KindOffProtocol {
				fmt.Println("ignored:", string(ev.Progress.Payload)) // its log line
				continue
			}
			fmt.Println("the agent read:", string(ev.Progress.Payload))
		case lux.EventDone:
			fmt.Printf("done: %d tokens, $%.3f\n", ev.Done.Usage.Total(), *ev.Done.CostUSD)
		}
	}
	_ = s.Quiesce(ctx)
	// Output:
	// ready: shell-agent
	// asked: Which file?
	// the agent read: {"type":"answer","id":"q1","text":"main.go"}
	// ignored: {"dropped":1,"first":["working on: fix the tests"]}
	// done: 15 tokens, $0.001
}
