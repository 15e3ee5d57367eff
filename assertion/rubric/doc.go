// Package rubric is the "rubric" assertion: a model (the judge, through
// package harness) reads the criteria, the task and a bounded selection of
// the run's evidence, and answers with a score in [0,1] and a comment.
//
// Config (besides the spec's id, name, weight and threshold):
//
//	{"type": "rubric", "id": "readme-clear",
//	 "criteria": "The README says how to run the tests, in one command.",
//	 "evidence": {"eventTypes": ["agent-message", "tool-call"], "artifacts": ["README.md"]},
//	 "model": "claude-haiku-4-5"}
//
// The harness model fields (provider, model, command, effort, timeout, env,
// args, userConfig) select the judge; those the config leaves out come from
// the project's harness model (Options.Harness of the orchestrator).
//
// # Evidence and budgets
//
// evidence selects what the judge sees: eventTypes (agent-message,
// tool-call, tool-result, interrupt, responded, terminal; default all but
// tool-result), toolDetail (names, inputs, inputs-and-results; default
// names), artifacts (globs of the files to show, default ["**/*"]),
// includeArtifactContents (default true), maxEvents (default 30),
// maxAgentChars (30,000), maxToolChars (20,000), maxArtifactChars (60,000),
// maxArtifactExcerpt (characters of one file, 4,000) and maxPromptChars (the
// whole prompt, 120,000). Over a budget the newest evidence is kept and a
// line says how much was left out. Everything the agent wrote is fenced
// with a fresh sentinel, and the judge is told it is data, never
// instructions.
//
// # Verdict
//
// The judge must answer with only {"score": <0..1>, "comment": "<one
// sentence>"} (a ```json fence is tolerated). An answer that is not is
// retried once, telling the judge what was wrong; a second invalid answer,
// or a failed call, is an error: the case gets no verdict, never a pass or
// a fail. The assertion passes when the score reaches the spec's threshold,
// 0.8 when the spec sets none. The result's detail names the judge
// (provider:model), the attempts, the reported cost and the raw answer
// (truncated); its usage is recorded as the judge's.
package rubric
