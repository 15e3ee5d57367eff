package harnesstest

import (
	"context"
	"errors"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
)

// Fake is a harness model that answers with its texts in order (an empty
// text is a failed call), each call costing $0.01 for 100 input and 10
// output tokens, and keeps the requests it got.
type Fake struct {
	mu    sync.Mutex
	texts []string
	reqs  []harness.Request
}

// NewFake returns a fake answering with texts.
func NewFake(texts ...string) *Fake { return &Fake{texts: texts} }

// Name is "fake:judge-1".
func (m *Fake) Name() string { return "fake:judge-1" }

// Complete answers with the next text.
func (m *Fake) Complete(ctx context.Context, req harness.Request) (harness.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.texts) == 0 {
		return harness.Response{}, errors.New("fake: no more answers")
	}
	text := m.texts[0]
	m.texts = m.texts[1:]
	if text == "" {
		return harness.Response{}, errors.New("fake: the call failed")
	}
	cost := 0.01
	return harness.Response{Text: text, Usage: lux.TokenUsage{Input: 100, Output: 10}, CostUSD: &cost, Model: "judge-1"}, nil
}

// Requests returns the requests so far.
func (m *Fake) Requests() []harness.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]harness.Request(nil), m.reqs...)
}

// Factory returns a factory whose every model is m.
func (m *Fake) Factory() harness.Factory {
	return func(harness.Config) (harness.Model, error) { return m, nil }
}

// Fresh returns a factory that makes a new fake with texts for every
// config parsed.
func Fresh(texts ...string) harness.Factory {
	return func(harness.Config) (harness.Model, error) { return NewFake(append([]string(nil), texts...)...), nil }
}
