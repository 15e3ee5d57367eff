package claudecode

import "github.com/luxeval/lux"

// Usage is reported once per API response (message id). With
// --include-partial-messages a response's usage comes from its stream
// events (message_start has the input and cache counts, message_delta the
// final output count) and is reported at its message_stop; the assistant
// lines, one per content block, repeat the start's counts. Without stream
// events a response is complete when the next one starts or a tool result
// arrives.

// observe records usage reported for the API response id. fromStream is
// true for stream_event lines, which end each response with message_stop.
func (p *parser) observe(out *output, id, model string, u *apiUsage, fromStream bool) {
	if id == "" || p.reported[id] {
		return
	}
	if !p.partial {
		// Without stream events a response is complete when the next
		// one starts.
		for _, open := range p.open {
			if open != id {
				p.flush(out, open)
			}
		}
	}
	cur, ok := p.usage[id]
	if !ok {
		cur = &apiUsage{}
		p.usage[id] = cur
		p.open = append(p.open, id)
	}
	if model != "" {
		p.models[id] = model
	}
	if u != nil {
		// Counts only grow within a response: the per-block lines repeat
		// the start's output count while the delta has the final one.
		max := func(dst **int64, src *int64) {
			if src != nil && (*dst == nil || *src > **dst) {
				n := *src
				*dst = &n
			}
		}
		max(&cur.Input, u.Input)
		max(&cur.Output, u.Output)
		max(&cur.CacheRead, u.CacheRead)
		max(&cur.CacheCreation, u.CacheCreation)
	}
}

// flush reports the usage of the response id, once.
func (p *parser) flush(out *output, id string) {
	u, ok := p.usage[id]
	if !ok || p.reported[id] {
		return
	}
	p.reported[id] = true
	delete(p.usage, id)
	for i, open := range p.open {
		if open == id {
			p.open = append(p.open[:i], p.open[i+1:]...)
			break
		}
	}
	if !u.reported() {
		return
	}
	out.progress("usage-"+id, lux.KindUsage, &lux.UsageReport{TokenUsage: u.tokens(), Label: p.models[id]})
}

// flushSequential reports the open responses when the CLI prints no stream
// events (their ends are then only known from what follows).
func (p *parser) flushSequential(out *output) {
	if !p.partial {
		p.flushAll(out)
	}
}

func (p *parser) flushAll(out *output) {
	for len(p.open) > 0 {
		p.flush(out, p.open[0])
	}
}
