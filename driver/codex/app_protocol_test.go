package codex

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/golden"
)

func testAppOptions() appOptions {
	return appOptions{
		parseOptions:   parseOptions{Model: "gpt-5.5", CLIVersion: "codex-cli 0.169.0"},
		Prompt:         "do it",
		Cwd:            "/var/tmp/cx/ws",
		Sandbox:        "workspace-write",
		ApprovalPolicy: "untrusted",
		MaxInterrupts:  20,
	}
}

// replay feeds a capture's server lines to the protocol, answering each
// interrupt with answer, and returns the transcript: the events and the
// messages sent, one per line.
func replay(t *testing.T, p *appProtocol, lines [][]byte, answer func(lux.Interrupt) lux.Answer) []byte {
	t.Helper()
	var b bytes.Buffer
	sent := func(msgs [][]byte) {
		for _, m := range msgs {
			b.WriteString("send ")
			b.Write(m)
			b.WriteByte('\n')
		}
	}
	sent([][]byte{p.Start()})
	for _, l := range lines {
		events, msgs := p.Line(l)
		for _, e := range events {
			line, err := json.Marshal(e)
			require.NoError(t, err)
			b.WriteString("event ")
			b.Write(line)
			b.WriteByte('\n')
			if e.Type == lux.EventInterrupt {
				reply, err := p.Answer(answer(*e.Interrupt))
				require.NoError(t, err)
				msgs = append(msgs, reply)
			}
		}
		sent(msgs)
	}
	return b.Bytes()
}

// TestAppProtocolGolden replays real `codex app-server` exchanges (codex
// 0.169.0 against a scripted model; the client's side of each capture is
// on the lines starting with ">> ") and compares the events and the
// messages sent with golden files.
func TestAppProtocolGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/appserver/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			p := newAppProtocol(testAppOptions())
			got := replay(t, p, readLines(t, f), func(in lux.Interrupt) lux.Answer {
				return lux.Answer{Kind: in.Kind, ID: in.ID, Text: "Blue", Approved: !strings.Contains(name, "decline")}
			})
			assert.True(t, p.Terminal(), "the capture ends its turn")
			assert.Zero(t, p.Pending(), "every interrupt answered")
			golden.Equal(t, strings.TrimSuffix(f, ".jsonl")+".golden", got)
		})
	}
}

// started returns a protocol past the handshake, with thread t1 and turn u1.
func started(t *testing.T, opts appOptions) *appProtocol {
	t.Helper()
	p := newAppProtocol(opts)
	p.Start()
	for _, l := range []string{
		`{"id":1,"result":{}}`,
		`{"id":2,"result":{"model":"gpt-5.5","thread":{"id":"t1","cliVersion":"0.169.0"}}}`,
		`{"id":3,"result":{"turn":{"id":"u1","status":"inProgress"}}}`,
	} {
		p.Line([]byte(l))
	}
	require.True(t, p.ready)
	return p
}

func TestAppProtocolRequests(t *testing.T) {
	approval := `{"method":"item/commandExecution/requestApproval","id":7,"params":{"threadId":"t1","turnId":"u1","itemId":"c1","command":"rm -rf x","cwd":"/w","reason":"cleanup"}}`
	tests := []struct {
		name      string
		max       int // maxInterrupts; 0 for 20
		asked     int // interrupts already raised
		line      string
		answer    func(lux.Interrupt) lux.Answer
		wantEvent string // JSON of the one event
		wantSend  string // JSON of the one message sent (on the line or after the answer)
	}{
		{
			name:      "approved command",
			line:      approval,
			answer:    func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: lux.Approve, ID: in.ID, Approved: true} },
			wantEvent: `{"type":"interrupt","id":"c1:7","kind":"approve","request":{"action":"command","tool":"command_execution","command":"rm -rf x","cwd":"/w","description":"cleanup","input":{"command":"rm -rf x","cwd":"/w"},"noDenyReason":true},"context":{"itemId":"c1","method":"item/commandExecution/requestApproval"},"raw":{"threadId":"t1","turnId":"u1","itemId":"c1","command":"rm -rf x","cwd":"/w","reason":"cleanup"}}`,
			wantSend:  `{"id":7,"result":{"decision":"accept"}}`,
		},
		{
			name:      "denied command",
			line:      approval,
			answer:    func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: lux.Approve, ID: in.ID} },
			wantEvent: `{"type":"interrupt","id":"c1:7","kind":"approve","request":{"action":"command","tool":"command_execution","command":"rm -rf x","cwd":"/w","description":"cleanup","input":{"command":"rm -rf x","cwd":"/w"},"noDenyReason":true},"context":{"itemId":"c1","method":"item/commandExecution/requestApproval"},"raw":{"threadId":"t1","turnId":"u1","itemId":"c1","command":"rm -rf x","cwd":"/w","reason":"cleanup"}}`,
			wantSend:  `{"id":7,"result":{"decision":"decline"}}`,
		},
		{
			name: "questions answered one by one from a JSON object",
			line: `{"method":"item/tool/requestUserInput","id":"r9","params":{"threadId":"t1","turnId":"u1","itemId":"q","questions":[{"id":"color","header":"C","question":"Which color?"},{"id":"size","header":"S","question":"Which size?"}]}}`,
			answer: func(in lux.Interrupt) lux.Answer {
				return lux.Answer{Kind: lux.Ask, ID: in.ID, Text: `{"color":"Blue","Which size?":["L","XL"]}`}
			},
			wantEvent: `{"type":"interrupt","id":"q:r9","kind":"ask","question":"Which color?\nWhich size?","questions":[{"id":"color","text":"Which color?","header":"C"},{"id":"size","text":"Which size?","header":"S"}],"context":{"itemId":"q","method":"item/tool/requestUserInput"},"raw":{"threadId":"t1","turnId":"u1","itemId":"q","questions":[{"header":"C","id":"color","question":"Which color?"},{"header":"S","id":"size","question":"Which size?"}]}}`,
			wantSend:  `{"id":"r9","result":{"answers":{"color":{"answers":["Blue"]},"size":{"answers":["L","XL"]}}}}`,
		},
		{
			name: "questions answered by id, the rest by the text",
			line: `{"method":"item/tool/requestUserInput","id":"r9","params":{"threadId":"t1","turnId":"u1","itemId":"q","questions":[{"id":"color","header":"C","question":"Which color?"},{"id":"size","header":"S","question":"Which size?"}]}}`,
			answer: func(in lux.Interrupt) lux.Answer {
				return lux.Answer{Kind: lux.Ask, ID: in.ID, Text: "M", Answers: map[string]string{"color": "Red"}}
			},
			wantEvent: `{"type":"interrupt","id":"q:r9","kind":"ask","question":"Which color?\nWhich size?","questions":[{"id":"color","text":"Which color?","header":"C"},{"id":"size","text":"Which size?","header":"S"}],"context":{"itemId":"q","method":"item/tool/requestUserInput"},"raw":{"threadId":"t1","turnId":"u1","itemId":"q","questions":[{"header":"C","id":"color","question":"Which color?"},{"header":"S","id":"size","question":"Which size?"}]}}`,
			wantSend:  `{"id":"r9","result":{"answers":{"color":{"answers":["Red"]},"size":{"answers":["M"]}}}}`,
		},
		{
			name:      "permissions granted as asked",
			line:      `{"method":"item/permissions/requestApproval","id":4,"params":{"threadId":"t1","turnId":"u1","itemId":"p","cwd":"/w","permissions":{"network":{"enabled":true}}}}`,
			answer:    func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: lux.Approve, ID: in.ID, Approved: true} },
			wantEvent: `{"type":"interrupt","id":"p:4","kind":"approve","request":{"action":"permissions","tool":"permissions","input":{"network":{"enabled":true}},"noDenyReason":true},"context":{"itemId":"p","method":"item/permissions/requestApproval"},"raw":{"threadId":"t1","turnId":"u1","itemId":"p","cwd":"/w","permissions":{"network":{"enabled":true}}}}`,
			wantSend:  `{"id":4,"result":{"permissions":{"network":{"enabled":true}},"scope":"turn"}}`,
		},
		{
			name:      "elicitation fills the only property",
			line:      `{"method":"mcpServer/elicitation/request","id":5,"params":{"threadId":"t1","serverName":"s","mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			answer:    func(in lux.Interrupt) lux.Answer { return lux.Answer{Kind: lux.Ask, ID: in.ID, Text: "Ada"} },
			wantEvent: `{"type":"interrupt","id":"rpc-5","kind":"ask","question":"Your name?","context":{"method":"mcpServer/elicitation/request","serverName":"s","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}},"raw":{"threadId":"t1","serverName":"s","mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			wantSend:  `{"id":5,"result":{"action":"accept","content":{"name":"Ada"},"_meta":null}}`,
		},
		{
			name:      "unsupported request is declined at once",
			line:      `{"method":"attestation/generate","id":6,"params":{}}`,
			wantEvent: `{"type":"progress","id":"codex-error-1","kind":"codex-error","payload":{"message":"declined unsupported request attestation/generate"}}`,
			wantSend:  `{"id":6,"error":{"code":-32601,"message":"unsupported server request: attestation/generate"}}`,
		},
		{
			name:      "one request too many ends the run",
			max:       2,
			asked:     2,
			line:      approval,
			wantEvent: `{"type":"error","exitReason":"max-interactions","reason":"codex asked for more than 2 answers (maxInterrupts)"}`,
			wantSend:  `{"id":7,"error":{"code":-32000,"message":"interaction limit exceeded"}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testAppOptions()
			if tc.max > 0 {
				opts.MaxInterrupts = tc.max
			}
			p := started(t, opts)
			p.asked = tc.asked
			events, send := p.Line([]byte(tc.line))
			require.Len(t, events, 1)
			got, err := json.Marshal(events[0])
			require.NoError(t, err)
			assert.JSONEq(t, tc.wantEvent, string(got))
			if tc.answer != nil {
				require.Empty(t, send)
				reply, err := p.Answer(tc.answer(*events[0].Interrupt))
				require.NoError(t, err)
				send = [][]byte{reply}
				assert.Zero(t, p.Pending())
			}
			require.Len(t, send, 1)
			assert.JSONEq(t, tc.wantSend, string(send[0]))
		})
	}
}

func TestAppProtocolAnswerErrors(t *testing.T) {
	p := started(t, testAppOptions())
	events, _ := p.Line([]byte(`{"method":"item/fileChange/requestApproval","id":1,"params":{"threadId":"t1","turnId":"u1","itemId":"f"}}`))
	require.Len(t, events, 1)
	_, err := p.Answer(lux.Answer{Kind: lux.Ask, ID: "f:1", Text: "yes"})
	assert.ErrorIs(t, err, lux.ErrAnswerMismatch)
	_, err = p.Answer(lux.Answer{Kind: lux.Approve, ID: "nope", Approved: true})
	assert.ErrorContains(t, err, `no pending interrupt "nope"`)
	assert.Equal(t, 1, p.Pending(), "a wrong answer leaves the interrupt pending")
}

func TestAppProtocolTurnCompleted(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string // the terminal event's JSON, or "" for none
	}{
		{"another thread's turn is not ours", `{"method":"turn/completed","params":{"threadId":"sub","turn":{"id":"x","status":"completed"}}}`, ""},
		{"completed", `{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"completed"}}}`,
			`{"type":"done","turns":1,"summary":{"threadId":"t1","turnId":"u1"}}`},
		{"interrupted", `{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"interrupted","error":null}}}`,
			`{"type":"error","exitReason":"error","reason":"codex reported the turn interrupted"}`},
		{"failed", `{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"failed","error":{"message":"boom"}}}}`,
			`{"type":"error","exitReason":"error","reason":"boom"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := started(t, testAppOptions())
			events, _ := p.Line([]byte(tc.line))
			if tc.want == "" {
				assert.Empty(t, events)
				assert.False(t, p.Terminal())
				return
			}
			require.Len(t, events, 1)
			got, _ := json.Marshal(events[0])
			assert.JSONEq(t, tc.want, string(got))
			assert.True(t, p.Terminal())
		})
	}
}

func TestAppProtocolHandshakeError(t *testing.T) {
	p := newAppProtocol(testAppOptions())
	p.Start()
	p.Line([]byte(`{"method":"configWarning","params":{"summary":"careful"}}`))
	events, _ := p.Line([]byte(`{"id":1,"error":{"code":-32600,"message":"bad client"}}`))
	got, _ := json.Marshal(events)
	assert.JSONEq(t, `[{"type":"progress","id":"codex-warning-1","kind":"codex-warning","payload":{"message":"careful","source":"configWarning"}},
		{"type":"error","exitReason":"error","reason":"codex app-server: initialize failed: bad client"}]`, string(got))
}

func TestAppProtocolUsageSumsThreads(t *testing.T) {
	p := started(t, testAppOptions())
	p.Line([]byte(`{"method":"thread/tokenUsage/updated","params":{"threadId":"t1","turnId":"u1","tokenUsage":{"total":{"inputTokens":100,"cachedInputTokens":40,"outputTokens":10,"reasoningOutputTokens":0,"totalTokens":110},"last":{"inputTokens":100,"cachedInputTokens":40,"outputTokens":10,"reasoningOutputTokens":0,"totalTokens":110}}}}`))
	p.Line([]byte(`{"method":"thread/tokenUsage/updated","params":{"threadId":"sub","turnId":"s1","tokenUsage":{"total":{"inputTokens":50,"cachedInputTokens":0,"cacheWriteInputTokens":5,"outputTokens":5,"reasoningOutputTokens":0,"totalTokens":55},"last":{"inputTokens":50,"cachedInputTokens":0,"outputTokens":5,"reasoningOutputTokens":0,"totalTokens":55}}}}`))
	events, _ := p.Line([]byte(`{"method":"turn/completed","params":{"threadId":"t1","turn":{"id":"u1","status":"completed"}}}`))
	require.Len(t, events, 1)
	require.NotNil(t, events[0].Done)
	assert.Equal(t, &lux.TokenUsage{Input: 105, Output: 15, CacheRead: 40, CacheCreation: 5}, events[0].Done.Usage)
}
