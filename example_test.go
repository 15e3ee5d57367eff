package lux_test

import (
	"fmt"

	"github.com/luxeval/lux"
)

// A case is data: parse it from JSON (or build it in Go) and validate it.
// Every problem is reported at once, each with its field path.
func ExampleParseCase() {
	c, err := lux.ParseCase([]byte(`{
	  "id": "greet",
	  "prompt": "",
	  "assertions": [
	    {"type": "file-exists", "id": "hello", "path": "hello.txt"},
	    {"type": "file-contains", "id": "hello", "path": "hello.txt", "text": "hi", "threshold": 2}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Validate())
	// Output:
	// lux: invalid case:
	//   - prompt: required (say what the agent should do)
	//   - assertions[1].id: duplicate id "hello" (assertions[0] has it too; give each assertion its own id)
	//   - assertions[1].threshold: must be between 0 and 1, got 2
}

// Usage the agent did not report is unavailable, which is not zero.
func ExampleUsage() {
	var u lux.Usage
	fmt.Println(u.AgentAvailable())
	u.Agent = &lux.TokenUsage{Input: 1200, Output: 300}
	fmt.Println(u.AgentAvailable(), u.Agent.Total())
	// Output:
	// false
	// true 1500
}
