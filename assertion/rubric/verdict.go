package rubric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/luxeval/lux/internal/jsonerr"
)

// verdict is the judge's answer.
type verdict struct {
	Score   *float64 `json:"score"`
	Comment *string  `json:"comment"`
}

// Verdict is a valid judge answer.
type Verdict struct {
	Score   float64
	Comment string
}

// parseVerdict reads the judge's answer: a JSON object with exactly a
// score in [0,1] and a comment of 1 to 2000 characters, optionally in a
// ```json fence.
func parseVerdict(text string) (Verdict, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		s = strings.TrimSpace(s)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var v verdict
	if err := dec.Decode(&v); err != nil {
		return Verdict{}, fmt.Errorf("it is not the JSON object asked for (%s)", jsonerr.Describe([]byte(s), err))
	}
	if dec.More() {
		return Verdict{}, errors.New("it has text after the JSON object")
	}
	switch {
	case v.Score == nil:
		return Verdict{}, errors.New(`it has no "score"`)
	case math.IsNaN(*v.Score) || *v.Score < 0 || *v.Score > 1:
		return Verdict{}, fmt.Errorf(`its "score" %v is not between 0 and 1`, *v.Score)
	case v.Comment == nil || strings.TrimSpace(*v.Comment) == "":
		return Verdict{}, errors.New(`it has no "comment"`)
	case len(*v.Comment) > 2000:
		return Verdict{}, errors.New(`its "comment" is longer than 2000 characters`)
	}
	return Verdict{Score: *v.Score, Comment: strings.TrimSpace(*v.Comment)}, nil
}
