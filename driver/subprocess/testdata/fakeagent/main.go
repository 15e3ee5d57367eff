// Command fakeagent is a lux-jsonl agent for the subprocess driver's
// tests. Its first argument names the scenario to play.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/luxeval/lux/internal/fakeproc"
)

var stdin = bufio.NewReader(os.Stdin)

func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
}

type obj = map[string]any

func ready() { emit(obj{"type": "ready", "agentId": "fake", "agentVersion": "1.0", "model": "m1"}) }

// readAnswer reads one stdin line and reports it back as progress.
func readAnswer(id string) {
	line, err := stdin.ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "no answer:", err)
		os.Exit(4)
	}
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		fmt.Fprintln(os.Stderr, "bad answer:", line)
		os.Exit(5)
	}
	emit(obj{"type": "progress", "id": "got-" + id, "kind": "answer-received", "payload": v})
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeagent SCENARIO")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "happy":
		fmt.Println("starting up (a log line)")
		emit(obj{"type": "progress", "id": "boot", "kind": "status", "payload": "warming"})
		ready()
		emit(obj{"type": "progress", "id": "m1", "kind": "agent-message", "payload": obj{"text": "on it: " + os.Getenv("LUX_PROMPT")}})
		emit(obj{"type": "progress", "id": "tc-1", "kind": "tool-call", "payload": obj{"name": "Write", "input": obj{"path": "out.txt"}, "toolUseId": "1"}})
		dir := os.Getenv("LUX_ARTIFACTS_DIR")
		if err := os.WriteFile(filepath.Join(dir, "out.txt"), []byte("hello"), 0o644); err != nil {
			emit(obj{"type": "error", "reason": err.Error()})
			return
		}
		emit(obj{"type": "progress", "id": "tr-1", "kind": "tool-result", "payload": obj{"name": "Write", "toolUseId": "1", "content": "ok", "isError": false, "text": "ok"}})
		emit(obj{"type": "done", "summary": obj{"usage": obj{"input": 10, "output": 5, "cacheRead": 2, "cacheCreation": 1}, "cost": 0.25, "note": "fine"}})
	case "ask":
		ready()
		emit(obj{"type": "interrupt", "kind": "ask", "id": "q1", "question": "Which color?", "context": obj{"options": []string{"red", "blue"}}})
		readAnswer("q1")
		emit(obj{"type": "done"})
	case "approve":
		ready()
		emit(obj{"type": "interrupt", "kind": "approve", "id": "a1", "request": obj{"tool": "Bash", "command": "ls"}})
		readAnswer("a1")
		emit(obj{"type": "interrupt", "kind": "approve", "id": "a2", "request": obj{"tool": "Bash", "command": "rm -rf /"}})
		readAnswer("a2")
		emit(obj{"type": "interrupt", "kind": "custom", "id": "c1", "payload": obj{"type": "lux.conversation-turn.v1", "message": "more?"}})
		readAnswer("c1")
		emit(obj{"type": "done"})
	case "many-asks":
		ready()
		for _, id := range []string{"q1", "q2", "q3"} {
			emit(obj{"type": "interrupt", "kind": "ask", "id": id, "question": "again?"})
			readAnswer(id)
		}
		emit(obj{"type": "done"})
	case "silent":
		ready()
		emit(obj{"type": "progress", "id": "p", "kind": "status", "payload": "thinking"})
		fakeproc.Hang()
	case "silent-before-ready":
		fakeproc.Hang()
	case "crash":
		ready()
		fmt.Fprintln(os.Stderr, "fatal: boom")
		os.Exit(2)
	case "error":
		ready()
		emit(obj{"type": "error", "reason": "no API key"})
	case "spawn":
		// A background child that ignores SIGTERM and keeps stdout open.
		c := exec.Command(os.Args[0], "sleeper")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			panic(err)
		}
		ready()
		emit(obj{"type": "progress", "id": "child", "kind": "pid", "payload": c.Process.Pid})
		if len(os.Args) > 2 && os.Args[2] == "hang" {
			fakeproc.Hang()
		}
		emit(obj{"type": "done"})
	case "sleeper":
		signal.Ignore(syscall.SIGTERM)
		fakeproc.Hang()
	case "oversized":
		ready()
		emit(obj{"type": "progress", "id": "big", "kind": "blob", "payload": strings.Repeat("x", 2000)})
		emit(obj{"type": "done"})
	case "noisy":
		fmt.Println("plain log line")
		fmt.Println(`{"type":"ready"}`)
		fmt.Println(`{"not":"an event"}`)
		ready()
		fmt.Println("[info] step 1")
		fmt.Println(`{"type":"progress","id":7,"kind":"k"}`)
		fmt.Println(`{"type":"interrupt","kind":"ask","id":"q0"}`)
		fmt.Println(`{"type":"status","ok":true}`)
		fmt.Println(`[1,2,3]`)
		fmt.Println(`{"type":"done"`)
		emit(obj{"type": "progress", "id": "p1", "kind": "status", "payload": 1})
		fmt.Fprintln(os.Stderr, "stderr noise")
		fmt.Println(`{"type":"error","exitReason":"tired","reason":"x"}`)
		emit(obj{"type": "done"})
	case "env":
		ready()
		keys := []string{"LUX_CASE_ID", "LUX_RUN_DIR", "LUX_ARTIFACTS_DIR", "LUX_PROMPT", "PATH", "HOME", "LUX_SUBPROCESS_TEST_HOST", "CUSTOM"}
		env := obj{}
		for _, k := range keys {
			if v, ok := os.LookupEnv(k); ok {
				env[k] = v
			}
		}
		wd, _ := os.Getwd()
		env["cwd"] = wd
		env["args"] = os.Args[2:]
		emit(obj{"type": "progress", "id": "env", "kind": "env", "payload": env})
		emit(obj{"type": "done"})
	case "stdin-prompt":
		ready()
		b, _ := io.ReadAll(stdin)
		emit(obj{"type": "progress", "id": "stdin", "kind": "stdin", "payload": string(b)})
		emit(obj{"type": "done"})
	default:
		fmt.Fprintln(os.Stderr, "unknown scenario", os.Args[1])
		os.Exit(2)
	}
}
