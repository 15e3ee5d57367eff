package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/luxeval/lux"
)

// claude is the Claude Code provider: claude -p as a plain model.
type claude struct{ cfg Config }

func (m *claude) Name() string { return ClaudeCode + ":" + m.cfg.Model }

// claudeEffort maps an effort onto Claude Code's --effort levels.
func claudeEffort(e string) string {
	switch e {
	case "medium", "high":
		return e
	case "xhigh":
		return "max"
	}
	return "low"
}

// claudeHardening turns off what a one-shot model call must not do or
// read: memory, CLAUDE.md files, prompt history, background tasks, IDE and
// marketplace connections, updates. (The call has no tools, so it starts
// no subprocess whose environment would need scrubbing; the scrub needs
// bubblewrap, which many machines lack.)
var claudeHardening = []string{
	"CLAUDE_CODE_DISABLE_AUTO_MEMORY=1",
	"CLAUDE_CODE_DISABLE_CLAUDE_MDS=1",
	"CLAUDE_CODE_SKIP_PROMPT_HISTORY=1",
	"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1",
	"CLAUDE_CODE_AUTO_CONNECT_IDE=false",
	"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
	"DISABLE_AUTOUPDATER=1",
}

// claudeArgs are the flags of one call: JSON output, no tools, no slash
// commands, no MCP, no session persistence, no settings files, no hooks.
// --bare (no OAuth or keychain lookups) is added when an API key is set.
func (m *claude) args(system string, apiKey bool) []string {
	args := []string{
		"-p", "--output-format", "json",
		"--model", m.cfg.Model, "--effort", claudeEffort(m.cfg.Effort),
		"--safe-mode", "--disable-slash-commands",
		"--tools", "", "--disallowed-tools", "*",
		"--no-chrome", "--no-session-persistence", "--strict-mcp-config",
		"--setting-sources", "",
	}
	if apiKey {
		args = append(args, "--bare")
	}
	args = append(args, "--settings", `{"disableAllHooks":true}`)
	args = append(args, m.cfg.Args...)
	return append(args, "--system-prompt", system)
}

// claudeEnvelope is the JSON object claude -p --output-format json prints.
type claudeEnvelope struct {
	Type         string                     `json:"type"`
	Result       *string                    `json:"result"`
	IsError      bool                       `json:"is_error"`
	TotalCostUSD *float64                   `json:"total_cost_usd"`
	Usage        *claudeUsage               `json:"usage"`
	ModelUsage   map[string]json.RawMessage `json:"modelUsage"`
}

type claudeUsage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

func (m *claude) Complete(ctx context.Context, req Request) (Response, error) {
	command := m.cfg.Command
	if command == "" {
		command = "claude"
	}
	_, apiKey := m.cfg.Env["ANTHROPIC_API_KEY"]
	apiKey = apiKey || os.Getenv("ANTHROPIC_API_KEY") != ""
	out, err := run(ctx, m.cfg, invocation{
		command: command, args: m.args(req.System, apiKey), input: req.Prompt,
		env: claudeHardening, configVar: "CLAUDE_CONFIG_DIR",
		failure: func(stdout []byte) string {
			var env claudeEnvelope
			if json.Unmarshal(stdout, &env) != nil || env.Result == nil {
				return ""
			}
			return *env.Result
		},
	})
	if err != nil {
		return Response{}, err
	}
	var env claudeEnvelope
	if err := json.Unmarshal(out, &env); err != nil || env.Result == nil {
		return Response{}, fmt.Errorf("harness: could not parse claude's JSON answer: %s", Clamp(strings.TrimSpace(string(out)), stderrShown))
	}
	if env.IsError {
		return Response{}, fmt.Errorf("harness: claude reported an error: %s", Clamp(*env.Result, stderrShown))
	}
	resp := Response{Text: *env.Result, CostUSD: env.TotalCostUSD, Model: m.cfg.Model}
	if env.Usage != nil {
		resp.Usage = lux.TokenUsage{Input: env.Usage.Input, Output: env.Usage.Output, CacheRead: env.Usage.CacheRead, CacheCreation: env.Usage.CacheCreation}
	}
	if len(env.ModelUsage) == 1 {
		for name := range env.ModelUsage {
			resp.Model = name
		}
	}
	return resp, nil
}
