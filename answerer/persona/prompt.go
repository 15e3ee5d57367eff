package persona

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
)

// systemPrompt tells the model whom it plays and how to answer.
func systemPrompt(info lux.AnswererInfo, f harness.Fence) string {
	var b strings.Builder
	b.WriteString("You are role-playing the user of a coding agent. The agent is working on a task you gave it and has stopped to ask you something. Answer as this user would.\n\n")
	if p := strings.TrimSpace(info.Persona); p != "" {
		b.WriteString("Your persona:\n" + harness.Clamp(p, maxPersonaChars) + "\n\n")
	}
	b.WriteString("The task you gave the agent:\n" + harness.Clamp(info.Prompt, maxTaskChars) + "\n\n")
	b.WriteString(strings.Join([]string{
		"Rules:",
		"- Do not use tools; answer with text only.",
		"- " + f.Rule(),
		"- Stay in character and be brief.",
		`- For an approval request, answer with only JSON: {"approved": true or false, "reason": "<short reason>"}.`,
		"- For a custom request, answer with only a JSON value.",
		"- For a question, answer in plain text.",
	}, "\n"))
	return b.String()
}

// userPrompt is the history (bounded) and the interrupt to answer.
func userPrompt(in lux.Interrupt, history []lux.Exchange, maxHistory, maxChars int, f harness.Fence) string {
	var b strings.Builder
	if len(history) > 0 {
		b.WriteString("Conversation so far:\n")
		shown := history
		if len(shown) > maxHistory {
			fmt.Fprintf(&b, "(%d earlier turns omitted)\n", len(shown)-maxHistory)
			shown = shown[len(shown)-maxHistory:]
		}
		for _, ex := range shown {
			fmt.Fprintf(&b, "The agent (%s):\n%s\nYou answered:\n%s\n", ex.Interrupt.Kind,
				f.Wrap(harness.Clamp(ex.Interrupt.Text(), maxChars)), f.Wrap(harness.Clamp(answerText(ex.Answer), maxChars)))
		}
		b.WriteString("\n")
	}
	switch in.Kind {
	case lux.Ask:
		b.WriteString("The agent asks you:\n")
		b.WriteString(f.Wrap(harness.Clamp(in.Question, maxChars)))
		if opts := renderOptions(in.Questions, maxChars); opts != "" {
			b.WriteString("\n" + f.Wrap(opts))
			b.WriteString("\nAnswer with the label of your choice (or labels, comma-separated, where several may be picked).")
		}
	case lux.Approve:
		b.WriteString("The agent asks for your approval to do this:\n")
		b.WriteString(f.Wrap(harness.Clamp(in.Text(), maxChars)))
		b.WriteString("\n" + `Answer with only JSON: {"approved": true or false, "reason": "<short reason>"}.`)
	default:
		b.WriteString("The agent sends you this request:\n")
		b.WriteString(f.Wrap(harness.Clamp(in.Text(), maxChars)))
		b.WriteString("\nAnswer with only a JSON value.")
	}
	return b.String()
}

func answerText(a lux.Answer) string {
	switch a.Kind {
	case lux.Ask:
		return a.Text
	case lux.Approve:
		s := "denied"
		if a.Approved {
			s = "approved"
		}
		if a.Reason != "" {
			s += ": " + a.Reason
		}
		return s
	}
	b, _ := json.Marshal(a.Payload)
	return string(b)
}

// renderOptions lists the options of an ask interrupt's questions, or
// returns "" when none offers options.
func renderOptions(qs []lux.Question, maxChars int) string {
	var b strings.Builder
	for _, q := range qs {
		if len(q.Options) == 0 {
			continue
		}
		fmt.Fprintf(&b, "Options for %s: %s\n", harness.Clamp(q.Header, 200), harness.Clamp(q.Text, maxChars))
		for _, o := range q.Options {
			line := "- " + harness.Clamp(o.Label, 200)
			if o.Description != "" {
				line += ": " + harness.Clamp(o.Description, 500)
			}
			b.WriteString(line + "\n")
		}
		if q.MultiSelect {
			b.WriteString("(you may pick several)\n")
		} else {
			b.WriteString("(pick one)\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
