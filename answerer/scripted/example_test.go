package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
)

func Example() {
	reg := lux.NewRegistry()
	if err := reg.RegisterAnswerer(scripted.Plugin()); err != nil {
		panic(err)
	}
	// The answerer config of a case, as JSON.
	p, _ := reg.Answerer("scripted")
	cfg, err := p.Parse(json.RawMessage(`{"rules": [
		{"match": "(?i)which database", "answer": "PostgreSQL"},
		{"kind": "approve", "match": "rm -rf", "approve": false, "reason": "never delete"},
		{"kind": "approve", "default": true, "approve": true}
	]}`))
	if err != nil {
		panic(err)
	}
	a, _ := cfg.Prepare(context.Background(), lux.AnswererInfo{CaseID: "demo"})
	defer a.Close()

	for _, in := range []lux.Interrupt{
		{Kind: lux.Ask, ID: "q1", Question: "Which database should I use?"},
		{Kind: lux.Approve, ID: "a1", Request: map[string]any{"command": "rm -rf build"}},
		{Kind: lux.Approve, ID: "a2", Request: map[string]any{"command": "go test ./..."}},
		{Kind: lux.Ask, ID: "q2", Question: "Tabs or spaces?"},
	} {
		ans, err := a.Answer(context.Background(), in, nil)
		switch {
		case errors.Is(err, lux.ErrUnanswered):
			fmt.Println(err)
		case in.Kind == lux.Ask:
			fmt.Printf("%s: %s\n", in.ID, ans.Text)
		default:
			fmt.Printf("%s: approved=%v (%s)\n", in.ID, ans.Approved, ans.Reason)
		}
	}
	// Output:
	// q1: PostgreSQL
	// a1: approved=false (never delete)
	// a2: approved=true ()
	// scripted: no rule answers ask interrupt "q2"; the question was "Tabs or spaces?"
}
