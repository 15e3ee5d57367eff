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
// Answers: a question gets the model's text; a custom interrupt gets the
// model's JSON, or {"text": ...}. An approval fails closed: the reply
// approves only when it holds exactly one JSON object whose "approved"
// field is the literal true, given once, with no denying, negating,
// hedging or conditional word in the text around it (a fence or "Here is
// my answer:" is fine); or, holding no JSON, when it is a short prose yes
// without such a word or a question mark. Anything else (truncated JSON,
// "approved" as a string, two decisions, an approval retracted in words,
// a long or unclear reply) is a denial whose reason says why.
//
// Config: the harness model fields (provider, model, command, effort,
// timeout, env, args, userConfig), which default to the project's harness
// model, plus maxHistory and maxChars. Usage and cost are the answerer's,
// recorded apart from the agent's.
package persona
