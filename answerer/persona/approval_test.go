package persona_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/harnesstest"
)

// An approval is given only when the reply clearly gives it: malformed,
// ambiguous or contradicted replies are denials, and the reason says why.
func TestApprovalRepliesThatDoNotClearlyApproveAreDenied(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("Let me think about the consequences. ", 5000)
	for _, tc := range []struct {
		name     string
		text     string
		approved bool
		reason   string // a part of the recorded reason
	}{
		// Clear approvals.
		{"json", `{"approved": true, "reason": "fine"}`, true, "fine"},
		{"fenced json", "```json\n{\"approved\": true, \"reason\": \"in the workspace\"}\n```", true, "in the workspace"},
		{"prose-wrapped json", "Here is my answer:\n{\"approved\": true, \"reason\": \"safe\"}", true, "safe"},
		{"json whose reason has a negation", `{"approved": true, "reason": "it is not outside the workspace"}`, true, "not outside"},
		{"plain yes", "Yes, go ahead.", true, ""},
		{"lgtm", "LGTM", true, ""},

		// Clear denials.
		{"json false", `{"approved": false, "reason": "looks risky"}`, false, "looks risky"},
		{"prose-wrapped json false", `My decision: {"approved": false, "reason": "looks risky"}`, false, "looks risky"},
		{"fenced json false", "```json\n{\"approved\": false, \"reason\": \"risky\"}\n```", false, "risky"},
		{"plain no", "No, don't touch that file.", false, ""},
		{"not approved", "Not approved.", false, ""},
		{"would not approve", "I would not approve dropping the production database.", false, ""},
		{"wouldn't", "I wouldn't do that.", false, ""},
		{"curly apostrophe", "I don’t want that.", false, ""},

		// Malformed or ambiguous: denied, with the reason.
		{"truncated json", `{"approved": false, "reason": "looks risky"`, false, "did not parse"},
		{"truncated json that approves", `{"approved": true, "reason": "fine"`, false, "did not parse"},
		{"key without braces", `"approved": true`, false, "did not parse"},
		{"truncated outer object around a valid one", `{"answer": {"approved": true}`, false, "did not parse"},
		{"valid object and a stray key", `{"approved": true} "approved": false`, false, "did not parse"},
		{"string false", `{"approved": "false"}`, false, "not true or false"},
		{"string true", `{"approved": "true"}`, false, "not true or false"},
		{"number", `{"approved": 1}`, false, "not true or false"},
		{"null", `{"approved": null}`, false, "not true or false"},
		{"no approved field", `{"decision": "approve"}`, false, "no \"approved\" field"},
		{"nested decision", `{"answer": {"approved": true}}`, false, "no \"approved\" field"},
		{"duplicate key", `{"approved": false, "approved": true}`, false, "more than once"},
		{"key in other case", `{"Approved": true}`, false, "no \"approved\" field"},
		{"two objects that disagree", `{"approved": true} {"approved": false}`, false, "2 decisions"},
		{"two objects that agree", `{"approved": true} {"approved": true}`, false, "2 decisions"},
		{"quoted example then a refusal", "An approval would look like `{\"approved\": true}`, but I refuse: dropping prod is not acceptable.", false, "words around"},
		{"json then a retraction", `{"approved": true} Actually, no.`, false, "words around"},
		{"json with a question", `{"approved": true} Is that what you wanted?`, false, "ask back"},
		{"json with a condition", `{"approved": true} only if you back it up first`, false, "words around"},
		{"approve word with a condition", "Yes, if you back it up first.", false, ""},
		{"approve word with but", "Yes, but do not delete anything.", false, ""},
		{"question back", "Approve? What does it do?", false, ""},
		{"false as a word", "approved: false", false, ""},
		{"maybe", "Hmm, maybe later.", false, "maybe later"},
		{"no decision word", "I see.", false, "not a clear approval"},
		{"empty", "", false, "not a clear approval"},
		{"huge prose", "Yes. " + huge, false, ""},
		{"many braces", strings.Repeat(`{"a":`, 100) + `{"approved": true}`, false, "did not parse"},
		{"huge json", `{"approved": true, "reason": "` + huge + `"}`, false, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := prepare(t, harnesstest.NewFake(tc.text+" "), `{}`, lux.AnswererInfo{Prompt: "p"})
			ans, err := a.Answer(context.Background(), lux.Interrupt{Kind: lux.Approve, ID: "a", Request: "drop database prod"}, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.approved, ans.Approved, "reply %.200q; reason %q", tc.text, ans.Reason)
			assert.Contains(t, ans.Reason, tc.reason)
			assert.LessOrEqual(t, len(ans.Reason), 800, "the reason is clamped")
			if !tc.approved {
				assert.NotEmpty(t, ans.Reason, "a denial says why")
			}
		})
	}
}
