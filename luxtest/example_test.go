package luxtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
	"github.com/luxeval/lux/luxtest"
)

// greeter is a driver for an in-process agent that says its greeting and
// is done. It has two bugs for the conformance suite to find: Parse
// ignores fields it does not know, and the session ends twice.
func greeter() *lux.DriverPlugin {
	return &lux.DriverPlugin{
		Name: "greeter",
		Doc:  "writes a greeting to hello.txt",
		Parse: func(raw json.RawMessage) (lux.DriverConfig, error) {
			cfg := &greeterConfig{Greeting: "hello"}
			if len(raw) > 0 {
				// A bug: json.Unmarshal ignores unknown fields; lux.DecodeConfig does not.
				if err := json.Unmarshal(raw, cfg); err != nil {
					return nil, fmt.Errorf("%w: %v", lux.ErrInvalidConfig, err)
				}
			}
			return cfg, nil
		},
	}
}

type greeterConfig struct {
	Greeting string `json:"greeting"`
}

func (c *greeterConfig) Runtime() lux.Runtime {
	return lux.Runtime{Commands: []string{"greeter"}}
}

func (c *greeterConfig) Start(ctx context.Context, info lux.StartInfo) (lux.Session, error) {
	return &greeterSession{workspace: info.Workspace, events: []lux.Event{
		{Type: lux.EventReady, Ready: &lux.Ready{AgentID: "greeter"}},
		{Type: lux.EventProgress, Progress: &lux.Progress{ID: "m1", Kind: lux.KindAgentMessage, Message: &lux.Message{Text: c.Greeting}}},
		{Type: lux.EventDone, Done: &lux.Done{}},
		{Type: lux.EventDone, Done: &lux.Done{}}, // a bug: a second terminal event
	}}, nil
}

type greeterSession struct {
	workspace string
	events    []lux.Event
}

func (s *greeterSession) Next(ctx context.Context) (lux.Event, error) {
	if err := ctx.Err(); err != nil {
		return lux.Event{}, err
	}
	if len(s.events) == 0 {
		return lux.Event{}, io.EOF
	}
	e := s.events[0]
	s.events = s.events[1:]
	return e, nil
}

func (s *greeterSession) Respond(ctx context.Context, a lux.Answer) error { return nil }
func (s *greeterSession) Quiesce(ctx context.Context) error               { return nil }
func (s *greeterSession) Close() error                                    { return nil }

func (s *greeterSession) Collect(ctx context.Context) ([]lux.Artifact, error) {
	return driver.WalkArtifacts(s.workspace, 0)
}

// In a test, luxtest.TestDriver(t, greeter(), scenario) reports each
// problem with t.Error; CheckDriver returns them.
func ExampleCheckDriver() {
	err := luxtest.CheckDriver(context.Background(), greeter(), luxtest.DriverScenario{
		Name:     "greet",
		Config:   json.RawMessage(`{"greeting": "hi"}`),
		Prompt:   "say hello",
		WantExit: lux.ExitDone,
	})
	for _, p := range luxtest.ProblemsOf(err) {
		fmt.Println(p)
	}
	// Output:
	// parse-unknown-field: Parse accepted the unknown field "luxtestUnknownField" in {"greeting":"hi","luxtestUnknownField":true}; want an error wrapping lux.ErrInvalidConfig; lux.DecodeConfig names every unknown field
	// [greet] terminal: a second terminal event (done) after done; a session has exactly one
}
