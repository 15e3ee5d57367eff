// Package lux is the vocabulary of lux, a library for evaluating coding
// agents: cases, events, usage, provenance, run records, and the contracts
// of the three kinds of plugin.
//
// A [Case] gives an agent a prompt and a starting workspace. A driver
// ([DriverPlugin]) runs the agent — a real CLI as a subprocess, or any
// program speaking the lux line protocol — and reports what it does as
// [Event] values through a [Session]. An answerer ([AnswererPlugin]) plays
// the user when the agent asks a question or needs approval. Assertions
// ([AssertionPlugin]) grade the artifacts and the trajectory. A [Registry]
// holds the plugins; the orchestrator package runs cases through it and
// keeps every piece of evidence on disk.
//
// This package imports no other package of the module: drivers,
// answerers, assertions, the orchestrator and the analysis packages all
// build on it.
package lux

// Version is the version of this module, recorded in every run.
const Version = "0.1.0"
