package persona

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/luxeval/lux/harness"
)

var (
	denyWords    = regexp.MustCompile(`(?i)\b(no|not|deny|denied|reject|rejected|refuse|can't|cannot|don't)\b`)
	approveWords = regexp.MustCompile(`(?i)\b(yes|yep|yeah|approve|approved|ok|okay|sure|go ahead|proceed|lgtm)\b`)
)

// approval reads the model's decision on an approval request: the JSON
// asked for, else its words; anything unclear is a denial.
func approval(text string) (bool, string) {
	var v struct {
		Approved *bool  `json:"approved"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(unfence(text)), &v); err == nil && v.Approved != nil {
		return *v.Approved, harness.Clamp(strings.TrimSpace(v.Reason), 500)
	}
	reason := harness.Clamp(text, 500)
	switch {
	case denyWords.MatchString(text):
		return false, reason
	case approveWords.MatchString(text):
		return true, reason
	}
	return false, "denied: the answer was not a clear approval: " + harness.Clamp(text, 200)
}

// unfence drops a ``` or ```json fence around text.
func unfence(text string) string {
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimPrefix(s, "json")
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}
