package persona

import (
	"regexp"
	"testing"
)

var trueWord = regexp.MustCompile(`\btrue\b`)

// Whatever the reply, reading it ends, and an approval always rests on a
// literal true or an approving word in it.
func FuzzApproval(f *testing.F) {
	for _, s := range []string{
		`{"approved": true, "reason": "fine"}`, `{"approved": false`, "Yes, go ahead.", `{"a": {"approved": true}`,
		"```json\n{\"approved\": true}\n```", `{"approved": true} no`, `{"approved": "true"}`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		ok, reason := approval(reply)
		if ok && !trueWord.MatchString(reply) && !approveWords.MatchString(reply) {
			t.Fatalf("approved %q without a true or an approving word (reason %q)", reply, reason)
		}
		if !ok && reason == "" {
			t.Fatalf("denied %q without a reason", reply)
		}
	})
}
