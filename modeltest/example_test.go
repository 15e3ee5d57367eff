package modeltest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/luxeval/lux/modeltest"
)

// Start a server with a two-turn script, send it the requests a client
// would (here with net/http; in a real test an agent CLI pointed at
// srv.URL()), and check what reached the model.
func Example() {
	srv, err := modeltest.NewServer(modeltest.Script{
		{
			Text: "I'll create the file.",
			ToolCalls: []modeltest.ToolCall{
				{Name: "Write", Input: map[string]any{"file_path": "hello.txt", "content": "Hello\n"}},
			},
			Usage: modeltest.Usage{InputTokens: 1000, OutputTokens: 50},
		},
		{Text: "Done.", Usage: modeltest.Usage{InputTokens: 1200, OutputTokens: 5}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	ask := func(messages string) {
		body := `{"model":"claude-test","max_tokens":1024,"tools":[{"name":"Write"}],"messages":` + messages + `}`
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		var msg struct {
			Content []struct {
				Type, Text, Name string
				Input            json.RawMessage
			}
			StopReason string `json:"stop_reason"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range msg.Content {
			switch c.Type {
			case "text":
				fmt.Printf("text: %s\n", c.Text)
			case "tool_use":
				fmt.Printf("tool_use: %s %s\n", c.Name, c.Input)
			}
		}
		fmt.Println("stop_reason:", msg.StopReason)
	}

	ask(`[{"role":"user","content":"Create hello.txt"}]`)
	ask(`[{"role":"user","content":"Create hello.txt"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_modeltest_0_0","name":"Write","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_modeltest_0_0","content":"File created"}]}]`)

	for _, r := range srv.Requests() {
		fmt.Printf("request %d: turn %d, tool results %d\n", r.Seq, r.Turn, len(r.ToolResults()))
	}
	last := srv.Requests()[1]
	result, _ := last.ToolResult("Write")
	fmt.Println("the model saw:", result.Text)
	// Output:
	// text: I'll create the file.
	// tool_use: Write {"content":"Hello\n","file_path":"hello.txt"}
	// stop_reason: tool_use
	// text: Done.
	// stop_reason: end_turn
	// request 0: turn 0, tool results 0
	// request 1: turn 1, tool results 1
	// the model saw: File created
}
