package modeltest

import (
	"fmt"
	"strings"
)

// ClaudeCodeEnv returns the environment variables, as KEY=VALUE, that point
// Claude Code at the server and turn off its other traffic: the base URL, a
// placeholder API key, DISABLE_TELEMETRY and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC. Add them to the CLI's
// environment.
func (s *Server) ClaudeCodeEnv() []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + s.URL(),
		"ANTHROPIC_API_KEY=sk-modeltest",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
}

// CodexArgs returns the flags, to put after "codex exec" (or "codex
// app-server"), that make the server Codex's model provider, named
// "modeltest", and turn off Codex's other traffic (analytics and plugin
// sync). The provider has no env_key, so Codex sends no Authorization header.
func (s *Server) CodexArgs() []string {
	return []string{
		"-c", "model_provider=modeltest",
		"-c", fmt.Sprintf(`model_providers.modeltest={name="modeltest",base_url=%q,wire_api="responses"}`, s.OpenAIBaseURL()),
		"-c", "analytics.enabled=false",
		"--disable", "plugins",
	}
}

// ProxyEnv returns HTTPS_PROXY, HTTP_PROXY and NO_PROXY variables (in upper
// and lower case) that send a CLI's traffic for any host but 127.0.0.1 and
// localhost to the server, which refuses it and records it as KindProxy. A
// test can then check that the CLI tried to reach nothing else.
func (s *Server) ProxyEnv() []string {
	var env []string
	for _, kv := range [][2]string{{"HTTPS_PROXY", s.URL()}, {"HTTP_PROXY", s.URL()}, {"NO_PROXY", "127.0.0.1,localhost"}} {
		env = append(env, kv[0]+"="+kv[1], strings.ToLower(kv[0])+"="+kv[1])
	}
	return env
}
