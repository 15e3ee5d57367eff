package assertion

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/luxeval/lux"
)

// What the transcript assertions look at (their "against" field).
const (
	// TranscriptFinal is the agent's last message (the default).
	TranscriptFinal = "transcript-final"
	// TranscriptAll is every message of the agent, joined by newlines.
	TranscriptAll = "transcript-all"
)

func checkAgainst(against *string, p *lux.Problems) {
	switch *against {
	case "":
		*against = TranscriptFinal
	case TranscriptFinal, TranscriptAll:
	default:
		p.AddFix("against", fmt.Sprintf("must be %q or %q, got %q", TranscriptFinal, TranscriptAll, *against),
			"leave it out for the agent's final message")
	}
}

// transcript returns the text the transcript assertions search and whether
// the agent wrote any message at all. Answers given to the agent's
// interrupts are not part of it.
func transcript(run *lux.Run, against string) (string, bool) {
	msgs := AgentMessages(run.Events)
	if len(msgs) == 0 {
		return "", false
	}
	if against == TranscriptAll {
		return strings.Join(msgs, "\n"), true
	}
	return msgs[len(msgs)-1], true
}

// says words a verdict on the transcript: says(against, "contains",
// "contain") is "the agent's final message contains" or "the agent's
// messages contain".
func says(against, singular, plural string) string {
	if against == TranscriptAll {
		return "the agent's messages " + plural
	}
	return "the agent's final message " + singular
}

type containsConfig struct {
	Text    string `json:"text"`
	Against string `json:"against,omitempty"`
}

func validateContains(c *containsConfig, p *lux.Problems) {
	if c.Text == "" {
		p.AddFix("text", "required", "give the text to look for")
	}
	checkAgainst(&c.Against, p)
}

func contains() *lux.AssertionPlugin {
	return define("contains",
		"Passes when the agent's final message (against: transcript-final) or any of its messages (transcript-all) contains text.",
		validateContains, gradeContains(false))
}

func notContains() *lux.AssertionPlugin {
	return define("not-contains",
		"Passes when the agent's final message (against: transcript-final) or all of its messages (transcript-all) do not contain text; an agent that wrote nothing passes.",
		validateContains, gradeContains(true))
}

// gradeContains grades whether the transcript contains the text; negated,
// for not-contains, the verdict is the other way round and an agent that
// wrote nothing passes.
func gradeContains(negated bool) func(context.Context, *containsConfig, *lux.Run) (lux.Result, error) {
	return func(_ context.Context, c *containsConfig, run *lux.Run) (lux.Result, error) {
		text, wrote := transcript(run, c.Against)
		detail := map[string]any{"against": c.Against, "text": c.Text, "transcriptChars": len(text)}
		if !wrote {
			return verdict(negated, "the agent wrote no message", detail), nil
		}
		i := strings.Index(text, c.Text)
		comment := fmt.Sprintf("%s %q", says(c.Against, "does not contain", "do not contain"), clip(c.Text, 80))
		switch {
		case i >= 0:
			detail["offset"] = i
			comment = fmt.Sprintf("%s %q", says(c.Against, "contains", "contain"), clip(c.Text, 80))
		case !negated:
			detail["excerpt"] = clip(text, 400)
		}
		return verdict((i >= 0) != negated, comment, detail), nil
	}
}

type regexConfig struct {
	Pattern string `json:"pattern"`
	Flags   string `json:"flags,omitempty"`
	Against string `json:"against,omitempty"`

	re *regexp.Regexp
}

func regex() *lux.AssertionPlugin {
	return define("regex",
		"Passes when the Go regular expression pattern (flags i, m, s) matches the agent's final message or, with against: transcript-all, its messages joined by newlines.",
		func(c *regexConfig, p *lux.Problems) {
			c.re = checkRegexp(c.Pattern, c.Flags, p)
			checkAgainst(&c.Against, p)
		},
		func(_ context.Context, c *regexConfig, run *lux.Run) (lux.Result, error) {
			text, wrote := transcript(run, c.Against)
			detail := map[string]any{"against": c.Against, "pattern": c.Pattern, "transcriptChars": len(text)}
			if !wrote {
				return Fail("the agent wrote no message", detail), nil
			}
			if loc := c.re.FindStringIndex(text); loc != nil {
				detail["match"] = clip(text[loc[0]:loc[1]], 200)
				return Pass(fmt.Sprintf("%s /%s/", says(c.Against, "matches", "match"), c.Pattern), detail), nil
			}
			detail["excerpt"] = clip(text, 400)
			return Fail(fmt.Sprintf("%s /%s/", says(c.Against, "does not match", "do not match"), c.Pattern), detail), nil
		})
}
