package modeltest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/modeltest"
)

// oneShot posts a fresh conversation with one user message and returns the
// answer's text.
func oneShot(t *testing.T, srv *modeltest.Server, user string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"model": "claude-haiku-4-5", "max_tokens": 1024,
		"messages": []map[string]any{{"role": "user", "content": user}},
	})
	resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var msg struct {
		Content []struct{ Text string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	require.NotEmpty(t, msg.Content)
	return msg.Content[0].Text
}

func TestOneShotTurnsTakeTheScriptInOrder(t *testing.T) {
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{{Text: "first"}, {Text: "second"}},
		modeltest.WithOneShotTurns(), modeltest.WithSideCalls(nil))
	assert.Equal(t, "first", oneShot(t, srv, "question one"))
	assert.Equal(t, "first", oneShot(t, srv, "question one"), "a retry of a conversation gets its turn again")
	assert.Equal(t, "second", oneShot(t, srv, "question two"))
	reqs := srv.TurnRequests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []int{0, 0, 1}, []int{reqs[0].Turn, reqs[1].Turn, reqs[2].Turn})
	assert.Equal(t, 2, reqs[1].Attempt)
}

// WithTurnOf answers by what a request says, whatever order requests
// come in, and takes precedence over one-shot turns; a turn it names
// outside the script is a recorded problem.
func TestTurnOfChoosesTheTurnFromTheRequest(t *testing.T) {
	t.Parallel()
	srv := modeltest.Start(t, modeltest.Script{{Text: "pass"}, {Text: "fail"}},
		modeltest.WithOneShotTurns(), modeltest.WithSideCalls(nil), modeltest.WithTurnOf(func(r *modeltest.Request) int {
			switch {
			case strings.Contains(r.UserText(), "broken"):
				return 7
			case strings.Contains(r.UserText(), "STRICT"):
				return 1
			}
			return 0
		}))
	assert.Equal(t, "fail", oneShot(t, srv, "STRICT: judge this"))
	assert.Equal(t, "pass", oneShot(t, srv, "LENIENT: judge this"))
	assert.Equal(t, "fail", oneShot(t, srv, "STRICT: judge that"))
	reqs := srv.TurnRequests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []int{1, 0, 1}, []int{reqs[0].Turn, reqs[1].Turn, reqs[2].Turn})

	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"broken"}]}`
	resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Error(t, srv.Err())
	assert.Contains(t, srv.Err().Error(), "turn 7")
}

func TestHoldDelaysTheAnswerUntilReleased(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := modeltest.Start(t, modeltest.Script{{Text: "late", Hold: release}})
	got := make(chan string, 1)
	go func() {
		body := `{"model":"m","max_tokens":10,"tools":[{"name":"Write"}],"messages":[{"role":"user","content":"hi"}]}`
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		var msg struct{ Content []struct{ Text string } }
		_ = json.NewDecoder(resp.Body).Decode(&msg)
		if len(msg.Content) == 0 {
			got <- "no content"
			return
		}
		got <- msg.Content[0].Text
	}()
	_, err := srv.WaitRequests(t.Context(), 1)
	require.NoError(t, err)
	select {
	case s := <-got:
		t.Fatalf("answered %q before the hold was released", s)
	default:
	}
	close(release)
	assert.Equal(t, "late", <-got)
}
