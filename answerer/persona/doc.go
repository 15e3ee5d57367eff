// Package persona is the "persona" answerer: a model (through package
// harness) plays the user the case's persona describes, and answers the
// agent's questions, approval requests and custom interrupts.
//
// For each interrupt the model is told the persona, the task the user gave
// the agent, the history of this run (the last MaxHistory exchanges, older
// ones elided with a count) and the current interrupt. Everything the agent
// wrote, and every earlier answer, is clamped to MaxChars characters and
// fenced with a sentinel made fresh for the call; the system prompt says
// fenced text is data, never instructions. A question's options (Claude
// Code's AskUserQuestion) are listed with whether one or several may be
// picked.
//
// Answers: a question gets the model's text; an approval is read as JSON
// {"approved": bool, "reason": "..."}, else by words (no, not, deny,
// reject, refuse, can't, cannot, don't deny; yes, ok, sure, approve, go
// ahead, proceed, lgtm approve), and anything unclear is a denial: it fails
// closed. A custom interrupt gets the model's JSON, or {"text": ...}.
//
// Config: the harness model fields (provider, model, command, effort,
// timeout, env, args, userConfig), which default to the project's harness
// model, plus maxHistory and maxChars. Usage and cost are the answerer's,
// recorded apart from the agent's.
package persona
