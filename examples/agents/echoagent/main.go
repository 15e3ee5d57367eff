// Command echoagent is a small example agent that speaks lux-jsonl, the
// line protocol any program can speak to be evaluated by lux (see the
// subprocess driver). It needs no model and no API key: it follows its
// prompt literally, one instruction per sentence or line:
//
//	write <path> containing "<text>"     writes a file in the workspace
//	ask "<question>" and write the answer to <path>
//	                                     asks the user, waits for the answer on stdin
//	say "<text>"                         writes an agent message
//	fail "<reason>"                      ends the run in error
//
// It reads the prompt from LUX_PROMPT and writes files under
// LUX_ARTIFACTS_DIR (the current directory when unset). It reports each
// step as progress (agent messages, tool calls and their results) and ends
// with done, reporting made-up token usage proportional to the text it
// read and wrote. `echoagent --version` prints its version.
//
// With ECHOAGENT_INSTRUCTIONS naming a file (an AGENTS.md, say), the
// instructions in it are followed before the prompt's, the way a real
// agent reads its instructions file: examples/experiment varies that file.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const version = "echoagent 1.0.0"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(version)
		return
	}
	dir := os.Getenv("LUX_ARTIFACTS_DIR")
	if dir == "" {
		dir = "."
	}
	prompt := os.Getenv("LUX_PROMPT")
	if path := os.Getenv("ECHOAGENT_INSTRUCTIONS"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "echoagent:", err)
			os.Exit(1)
		}
		prompt = string(b) + "\n" + prompt
	}
	if err := run(prompt, dir, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "echoagent:", err)
		os.Exit(1)
	}
}

var (
	writeRE = regexp.MustCompile(`(?i)^write\s+(\S+)\s+containing\s+"((?:[^"\\]|\\.)*)"$`)
	askRE   = regexp.MustCompile(`(?i)^ask\s+"((?:[^"\\]|\\.)*)"\s+and\s+write\s+the\s+answer\s+to\s+(\S+)$`)
	sayRE   = regexp.MustCompile(`(?i)^say\s+"((?:[^"\\]|\\.)*)"$`)
	failRE  = regexp.MustCompile(`(?i)^fail\s+"((?:[^"\\]|\\.)*)"$`)
)

// agent is one run of the agent: its output stream, its answers, its counters.
type agent struct {
	out     *json.Encoder
	answers *bufio.Scanner
	dir     string
	seq     int
	in, wr  int64 // made-up token counts
}

func run(prompt, dir string, stdin io.Reader, stdout io.Writer) error {
	a := &agent{out: json.NewEncoder(stdout), answers: bufio.NewScanner(stdin), dir: dir, in: tokens(prompt)}
	a.answers.Buffer(make([]byte, 64<<10), 1<<20)
	if err := a.emit(map[string]any{"type": "ready", "agentId": "echoagent", "agentVersion": version, "model": "rules-1"}); err != nil {
		return err
	}
	steps := instructions(prompt)
	if len(steps) == 0 {
		return a.emit(map[string]any{"type": "error", "reason": "the prompt is empty"})
	}
	for _, step := range steps {
		if err := a.do(step); err != nil {
			var stop stopError
			if errors.As(err, &stop) {
				return a.emit(map[string]any{"type": "error", "reason": string(stop)})
			}
			return err
		}
	}
	return a.emit(map[string]any{"type": "done", "summary": map[string]any{
		"usage": map[string]int64{"input": a.in, "output": a.wr, "cacheRead": 0, "cacheCreation": 0},
		"cost":  float64(a.in+a.wr) * 1e-6,
		"turns": len(steps),
	}})
}

// stopError ends the run with an error event.
type stopError string

func (s stopError) Error() string { return string(s) }

// instructions splits the prompt into sentences, keeping quoted text whole.
func instructions(prompt string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(prompt); i++ {
		c := prompt[i]
		switch {
		case c == '\\' && quoted && i+1 < len(prompt):
			cur.WriteByte(c)
			i++
			cur.WriteByte(prompt[i])
			continue
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '\n' || c == '.' && (i+1 == len(prompt) || prompt[i+1] == ' ' || prompt[i+1] == '\n')):
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}

func (a *agent) do(step string) error {
	switch {
	case writeRE.MatchString(step):
		m := writeRE.FindStringSubmatch(step)
		return a.write(m[1], unquote(m[2]))
	case askRE.MatchString(step):
		m := askRE.FindStringSubmatch(step)
		answer, err := a.ask(unquote(m[1]))
		if err != nil {
			return err
		}
		return a.write(m[2], answer+"\n")
	case sayRE.MatchString(step):
		return a.say(unquote(sayRE.FindStringSubmatch(step)[1]))
	case failRE.MatchString(step):
		return stopError(unquote(failRE.FindStringSubmatch(step)[1]))
	}
	return a.say("I do not know how to: " + step)
}

func (a *agent) next(prefix string) string {
	a.seq++
	return fmt.Sprintf("%s%d", prefix, a.seq)
}

func (a *agent) emit(v any) error { return a.out.Encode(v) }

func (a *agent) say(text string) error {
	a.wr += tokens(text)
	return a.emit(map[string]any{"type": "progress", "id": a.next("m"), "kind": "agent-message", "payload": map[string]any{"text": text}})
}

// write creates path (relative to the workspace, which it may not leave)
// and reports it as a Write tool call and its result.
func (a *agent) write(path, content string) error {
	id := a.next("toolu_")
	if err := a.emit(map[string]any{"type": "progress", "id": "tc-" + id, "kind": "tool-call", "payload": map[string]any{
		"name": "Write", "toolUseId": id, "input": map[string]any{"path": path, "content": content},
	}}); err != nil {
		return err
	}
	a.wr += tokens(content)
	result := map[string]any{"name": "Write", "toolUseId": id, "isError": false, "content": "wrote " + path, "text": "wrote " + path}
	clean := filepath.Clean(filepath.FromSlash(path))
	var err error
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		err = fmt.Errorf("%s is outside the workspace", path)
	} else {
		full := filepath.Join(a.dir, clean)
		if err = os.MkdirAll(filepath.Dir(full), 0o755); err == nil {
			err = os.WriteFile(full, []byte(content), 0o644)
		}
	}
	if err != nil {
		result["isError"], result["content"], result["text"] = true, err.Error(), err.Error()
	}
	return a.emit(map[string]any{"type": "progress", "id": "tr-" + id, "kind": "tool-result", "payload": result})
}

// ask sends an ask interrupt and waits for its answer on stdin.
func (a *agent) ask(question string) (string, error) {
	id := a.next("q")
	if err := a.emit(map[string]any{"type": "interrupt", "kind": "ask", "id": id, "question": question}); err != nil {
		return "", err
	}
	for a.answers.Scan() {
		var ans struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if json.Unmarshal(a.answers.Bytes(), &ans) != nil || ans.Type != "answer" || ans.ID != id {
			continue
		}
		a.in += tokens(ans.Text)
		return strings.TrimSpace(ans.Text), nil
	}
	if err := a.answers.Err(); err != nil {
		return "", err
	}
	return "", stopError("stdin closed before question " + id + " was answered")
}

func unquote(s string) string {
	r := strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n")
	return r.Replace(s)
}

// tokens is a made-up token count: about one per four bytes.
func tokens(s string) int64 { return int64(len(s)+3) / 4 }
