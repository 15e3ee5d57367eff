package persona

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/luxeval/lux/harness"
)

// Limits of an approval reply.
const (
	// maxReplyBytes bounds a reply read for a decision: the prompt asks
	// for one short JSON object, and a longer reply is deliberation, not a
	// decision.
	maxReplyBytes = 16 << 10
	// maxProseChars bounds a reply read by its words: a prose approval
	// must be short ("Yes, go ahead."); longer prose is weighing, not
	// deciding.
	maxProseChars = 300
)

var (
	// contraWords are words that deny, negate, hedge or set a condition.
	// Any of them in a prose reply, or in the words around a JSON decision,
	// makes an approval unclear, hence a denial.
	contraWords = regexp.MustCompile(`(?i)(\b(no|nope|not|never|nothing|none|nor|false|deny|denied|decline|declined|disapprove|disallow|reject|rejected|refuse|refused|forbid|forbidden|stop|abort|cancel|wait|hold|if|unless|but|only|except|provided|however|although|though|instead|maybe|perhaps|later|actually)\b|n['’]t\b)`)
	// approveWords are words that approve, read only in a short prose
	// reply without contraWords.
	approveWords = regexp.MustCompile(`(?i)\b(yes|yep|yeah|approve|approved|allow|allowed|granted|ok|okay|sure|go ahead|proceed|do it|lgtm)\b`)
	// jsonish is text that tried to give the JSON decision.
	jsonish = regexp.MustCompile(`[{}]|"approved"\s*:`)
)

// approval reads the model's decision on an approval request. It fails
// closed: the reply approves only when
//   - it holds exactly one JSON object with an "approved" field, that field
//     is the JSON literal true (given once, spelled so), and the words
//     around the object neither deny, negate, hedge, set a condition nor
//     ask back; or
//   - it holds no JSON at all and is a short prose approval ("Yes, go
//     ahead.") with no such word and no question.
//
// Everything else is a denial, and the reason says why (a JSON false
// gives the model's own reason).
func approval(text string) (bool, string) {
	text = strings.TrimSpace(text)
	if len(text) > maxReplyBytes {
		return false, fmt.Sprintf("denied: the reply is %d bytes, longer than a decision (%d): %s", len(text), maxReplyBytes, harness.Clamp(text, 200))
	}
	objs, rest := jsonObjects(text)
	if jsonish.MatchString(rest) {
		// A brace or an "approved" key outside every object that parsed:
		// JSON that did not parse, whatever parsed around or inside it.
		return false, "denied: the reply's JSON did not parse: " + harness.Clamp(text, 200)
	}
	var decisions []decision
	for _, o := range objs {
		if d, ok := readDecision(o); ok {
			decisions = append(decisions, d)
		}
	}
	switch {
	case len(decisions) > 1:
		return false, fmt.Sprintf("denied: the reply holds %d decisions: %s", len(decisions), harness.Clamp(text, 200))
	case len(decisions) == 1:
		return decided(decisions[0], rest, text)
	case len(objs) > 0:
		return false, `denied: the reply's JSON has no "approved" field: ` + harness.Clamp(text, 200)
	}
	return prose(text)
}

// decided is the verdict of one JSON decision with rest, the reply's
// words outside its JSON objects.
func decided(d decision, rest, text string) (bool, string) {
	if d.problem != "" {
		return false, "denied: " + d.problem + ": " + harness.Clamp(text, 200)
	}
	if !d.approved {
		if d.reason == "" {
			return false, "denied: " + harness.Clamp(text, 200)
		}
		return false, d.reason
	}
	if w := contraWords.FindString(rest); w != "" {
		return false, fmt.Sprintf("denied: the JSON approves but the words around it do not (%q): %s", w, harness.Clamp(text, 200))
	}
	if strings.Contains(rest, "?") {
		return false, "denied: the JSON approves but the words around it ask back: " + harness.Clamp(text, 200)
	}
	return true, d.reason
}

// prose reads a reply without JSON by its words.
func prose(text string) (bool, string) {
	reason := harness.Clamp(text, 500)
	switch {
	case contraWords.MatchString(text):
		return false, reason
	case strings.Contains(text, "?"):
		return false, "denied: the reply asks back instead of deciding: " + harness.Clamp(text, 200)
	case len(text) > maxProseChars:
		return false, "denied: a prose reply longer than a plain yes is not a clear approval: " + harness.Clamp(text, 200)
	case approveWords.MatchString(text):
		return true, reason
	}
	return false, "denied: the answer was not a clear approval: " + harness.Clamp(text, 200)
}

// decision is the "approved" field of one JSON object.
type decision struct {
	approved bool
	reason   string
	problem  string // why the field is not a clear decision; "" if it is
}

// readDecision reads obj's "approved" and "reason" fields; ok is false
// when obj has no "approved" field. Keys are matched exactly, unlike
// encoding/json's case-insensitive struct fields, and a repeated key is
// a problem, not "the last one wins".
func readDecision(obj []byte) (d decision, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return decision{}, false
	}
	seen := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return decision{}, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return decision{}, false
		}
		switch key {
		case "approved":
			seen++
			switch string(v) {
			case "true":
				d.approved = true
			case "false":
				d.approved = false
			default:
				d.problem = fmt.Sprintf(`"approved" is %s, not true or false`, harness.Clamp(string(v), 50))
			}
		case "reason":
			var s string
			if json.Unmarshal(v, &s) == nil {
				d.reason = harness.Clamp(strings.TrimSpace(s), 500)
			}
		}
	}
	if seen > 1 {
		d.problem = fmt.Sprintf(`"approved" is given %d times, more than once`, seen)
	}
	return d, seen > 0
}

// maxFailedObjects bounds the attempts to decode an object at a brace
// that opens none: past it, the rest of the reply is left unparsed (and
// so denied), which keeps pathological replies cheap.
const maxFailedObjects = 32

// jsonObjects returns the top-level JSON objects found in text, in order,
// and the text outside them.
func jsonObjects(text string) (objs [][]byte, rest string) {
	var out strings.Builder
	i, failed := 0, 0
	for i < len(text) && failed < maxFailedObjects {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		j += i
		var raw json.RawMessage
		dec := json.NewDecoder(strings.NewReader(text[j:]))
		if err := dec.Decode(&raw); err != nil {
			failed++
			out.WriteString(text[i : j+1])
			i = j + 1
			continue
		}
		out.WriteString(text[i:j] + " ")
		objs = append(objs, raw)
		i = j + int(dec.InputOffset())
	}
	out.WriteString(text[i:])
	return objs, out.String()
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
