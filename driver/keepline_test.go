package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/luxeval/lux/internal/ctxtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

// keepProtocol keeps each line it parses as a progress payload, without
// copying it, and counts the lines; all is closed once it has parsed
// want of them.
type keepProtocol struct {
	lines *atomic.Int32
	want  int32
	all   chan struct{}
}

func (k keepProtocol) Parse(_ context.Context, line []byte, _ *driver.Stdin) ([]lux.Event, error) {
	if k.lines.Add(1) == k.want {
		close(k.all)
	}
	if string(line) == "ready" {
		return []lux.Event{{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "keep"}}}, nil
	}
	p := lux.Progress{ID: "p", Kind: "line", Payload: json.RawMessage(line)}
	return []lux.Event{{Type: lux.EventProgress, Progress: &p}}, nil
}

func (keepProtocol) Answer(context.Context, lux.Interrupt, lux.Answer, *driver.Stdin) error {
	return nil
}

// A protocol may keep the line it is given: the session's reader does not
// reuse it for the lines that follow.
func TestSessionProtocolMayKeepTheLine(t *testing.T) {
	var n atomic.Int32
	all := make(chan struct{})
	s := start(t, driver.SessionOptions{
		Protocol: keepProtocol{lines: &n, want: 4, all: all},
		Process:  fakeSpec(t, "say ready", `say {"first":1}`, `say {"second":22222222}`, `say {"third":3}`, "exit 0"),
	})
	ctx, cancel := ctxtest.Safety(t)
	defer cancel()
	select { // every line read before the first is looked at
	case <-all:
	case <-ctx.Done():
		t.Fatal("the agent's lines were never all read")
	}
	var payloads []string
	for {
		ev, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if ev.Type == lux.EventProgress {
			payloads = append(payloads, string(ev.Progress.Payload))
		}
	}
	assert.Equal(t, []string{`{"first":1}`, `{"second":22222222}`, `{"third":3}`}, payloads)
}
