package rubric_test

import (
	"context"
	"errors"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
)

// fakeModel answers with its texts in order (an empty text is a failed
// call) and keeps the requests it got.
type fakeModel struct {
	mu    sync.Mutex
	texts []string
	reqs  []harness.Request
}

func (m *fakeModel) Name() string { return "fake:judge-1" }

func (m *fakeModel) Complete(ctx context.Context, req harness.Request) (harness.Response, error) {
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

func (m *fakeModel) requests() []harness.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]harness.Request(nil), m.reqs...)
}

func factoryOf(m *fakeModel) harness.Factory {
	return func(harness.Config) (harness.Model, error) { return m, nil }
}
