package scripted_test

import (
	"encoding/json"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/luxtest"
)

// The answerer keeps the contract every answerer keeps, checked by the
// suite plugin authors run: questions, an ask of several questions,
// approvals granted and refused.
func TestConformance(t *testing.T) {
	luxtest.TestAnswerer(t, scripted.Plugin(), json.RawMessage(`{"rules": [
		{"match": "(?i)which database", "answer": "PostgreSQL"},
		{"match": "(?i)tabs or spaces", "answer": "tabs"},
		{"kind": "approve", "match": "rm -rf", "approve": false, "reason": "never delete"},
		{"kind": "approve", "default": true, "approve": true}
	]}`),
		lux.Interrupt{Kind: lux.Ask, ID: "q1", Question: "Which database should I use?"},
		lux.Interrupt{Kind: lux.Ask, ID: "q2", Question: "Which database?\nTabs or spaces?", Questions: []lux.Question{
			{ID: "db", Text: "Which database?"}, {ID: "indent", Text: "Tabs or spaces?"},
		}},
		lux.Interrupt{Kind: lux.Approve, ID: "a1", Request: map[string]any{"command": "rm -rf build"}},
		lux.Interrupt{Kind: lux.Approve, ID: "a2", Request: map[string]any{"command": "go test ./..."}},
	)
}
