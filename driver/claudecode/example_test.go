package claudecode_test

import (
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux/driver/claudecode"
)

// A config is decoded strictly; its runtime says what the driver launches
// and what the agent can do.
func Example() {
	cfg, err := claudecode.Plugin().Parse(json.RawMessage(`{
		"model": "claude-sonnet-4-5",
		"permissionMode": "acceptEdits",
		"baseUrl": "http://127.0.0.1:8080"
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rt := cfg.Runtime()
	fmt.Println("commands:", rt.Commands)
	fmt.Println("capabilities:", rt.Capabilities)
	fmt.Println("model:", rt.Model)
	fmt.Println("install:", rt.InstallHint)

	_, err = claudecode.Plugin().Parse(json.RawMessage(`{"permissionMode": "yolo", "extraArgs": ["--model", "opus"]}`))
	fmt.Println(err)
	// Output:
	// commands: [claude]
	// capabilities: [ask approve tool-events usage cost]
	// model: claude-sonnet-4-5
	// install: npm install -g @anthropic-ai/claude-code
	// claudecode: lux: invalid config:
	//   - permissionMode: unknown permission mode "yolo" (use one of default, acceptEdits, auto, bypassPermissions, dontAsk, manual, plan)
	//   - extraArgs[0]: --model is set by the config (use the "model" field instead)
}
