package assertion

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/luxeval/lux"
)

// errNoMetadata is returned by assertions over run.json when the run has none
// (lux.Run's Outcome is nil).
var errNoMetadata = errors.New("the run has no metadata (run.json)")

func runSucceeded() *lux.AssertionPlugin {
	return define("run-succeeded",
		"Passes when the run ended because the agent finished (exit reason \"done\").",
		func(*struct{}, *lux.Problems) {},
		func(_ context.Context, _ *struct{}, run *lux.Run) (lux.Result, error) {
			m := run.Outcome
			if m == nil {
				return lux.Result{}, fmt.Errorf("assertion: run-succeeded: %w", errNoMetadata)
			}
			detail := map[string]any{"exitReason": string(m.ExitReason)}
			if m.ExitReason == lux.ExitDone {
				return Pass("the run ended with exit reason \"done\"", detail), nil
			}
			comment := fmt.Sprintf("the run ended with exit reason %q", m.ExitReason)
			if m.Reason != "" {
				detail["reason"] = m.Reason
				comment += ": " + clip(m.Reason, 200)
			}
			return Fail(comment, detail), nil
		})
}

type interruptCountConfig struct {
	Kind lux.InterruptKind `json:"kind,omitempty"`
	Min  *int              `json:"min,omitempty"`
	Max  *int              `json:"max,omitempty"`
}

func interruptCount() *lux.AssertionPlugin {
	return define("interrupt-count",
		"Passes when the number of interrupts (of kind ask, approve or custom; of any kind when left out) is within min and max.",
		func(c *interruptCountConfig, p *lux.Problems) {
			switch c.Kind {
			case "", lux.Ask, lux.Approve, lux.Custom:
			default:
				p.AddFix("kind", fmt.Sprintf("must be %q, %q or %q, got %q", lux.Ask, lux.Approve, lux.Custom, c.Kind),
					"leave it out to count interrupts of every kind")
			}
			bounds{c.Min, c.Max}.validate("min", "max", true, p)
		},
		func(_ context.Context, c *interruptCountConfig, run *lux.Run) (lux.Result, error) {
			n := 0
			for _, in := range Interrupts(run.Events) {
				if c.Kind == "" || in.Kind == c.Kind {
					n++
				}
			}
			b := bounds{c.Min, c.Max}
			ok, why := b.check(n)
			detail := b.detail(map[string]any{"count": n})
			what := plural(n, "interrupt", "interrupts")
			if c.Kind != "" {
				detail["kind"] = string(c.Kind)
				what = plural(n, string(c.Kind)+" interrupt", string(c.Kind)+" interrupts")
			}
			comment := fmt.Sprintf("%s: %s", what, why)
			return verdict(ok, comment, detail), nil
		})
}

type latencyUnderConfig struct {
	Max lux.Duration `json:"max"`
}

func latencyUnder() *lux.AssertionPlugin {
	return define("latency-under",
		"Passes when the agent's part of the run (start to the agent's end; grading excluded) took at most max (\"90s\", or milliseconds).",
		func(c *latencyUnderConfig, p *lux.Problems) {
			if c.Max <= 0 {
				p.AddFix("max", fmt.Sprintf("must be above zero, got %s", c.Max), "give a duration such as \"5m\"")
			}
		},
		func(_ context.Context, c *latencyUnderConfig, run *lux.Run) (lux.Result, error) {
			m := run.Outcome
			if m == nil {
				return lux.Result{}, fmt.Errorf("assertion: latency-under: %w", errNoMetadata)
			}
			end := m.EndedAt
			if !m.AgentEndedAt.IsZero() {
				end = m.AgentEndedAt
			}
			if m.StartedAt.IsZero() || end.IsZero() {
				return lux.Result{}, errors.New("assertion: latency-under: the run's metadata has no start or end time")
			}
			if end.Before(m.StartedAt) {
				return lux.Result{}, fmt.Errorf("assertion: latency-under: the run's metadata ends (%s) before it starts (%s)",
					end.Format(time.RFC3339Nano), m.StartedAt.Format(time.RFC3339Nano))
			}
			took := end.Sub(m.StartedAt)
			detail := map[string]any{"durationMs": took.Milliseconds(), "maxMs": c.Max.D().Milliseconds()}
			if took <= c.Max.D() {
				return Pass(fmt.Sprintf("took %s <= max %s", round(took), c.Max), detail), nil
			}
			return Fail(fmt.Sprintf("took %s > max %s", round(took), c.Max), detail), nil
		})
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d
}

// What onUnavailable may say (see the package documentation).
const (
	UnavailablePass = "pass"
	UnavailableFail = "fail"
)

func checkUnavailable(s *string, p *lux.Problems) {
	switch *s {
	case "":
		*s = UnavailablePass
	case UnavailablePass, UnavailableFail:
	default:
		p.AddFix("onUnavailable", fmt.Sprintf("must be %q or %q, got %q", UnavailablePass, UnavailableFail, *s),
			"leave it out to pass when the measure is unavailable")
	}
}

// unavailable is the result when the measured quantity was not reported.
func unavailable(onUnavailable, what string, detail map[string]any) lux.Result {
	detail["unavailable"] = true
	detail["onUnavailable"] = onUnavailable
	if onUnavailable == UnavailableFail {
		return Fail(what+" unavailable; failing (onUnavailable: fail)", detail)
	}
	return Pass(what+" unavailable; passing (onUnavailable: pass)", detail)
}

// The token components tokens-under can bound.
const (
	ComponentTotal         = "total" // input + output
	ComponentInput         = "input"
	ComponentOutput        = "output"
	ComponentCacheRead     = "cacheRead"
	ComponentCacheCreation = "cacheCreation"
)

type tokensUnderConfig struct {
	Max           *int64 `json:"max"`
	Component     string `json:"component,omitempty"`
	OnUnavailable string `json:"onUnavailable,omitempty"`
}

func tokensUnder() *lux.AssertionPlugin {
	return define("tokens-under",
		"Passes when the agent's reported tokens (component: total = input + output, or input, output, cacheRead, cacheCreation) are at most max. The answerer's and judges' tokens never count.",
		func(c *tokensUnderConfig, p *lux.Problems) {
			if c.Max == nil {
				p.AddFix("max", "required", "give the most tokens allowed")
			} else if *c.Max < 0 {
				p.Addf("max", "must not be negative, got %d", *c.Max)
			}
			switch c.Component {
			case "":
				c.Component = ComponentTotal
			case ComponentTotal, ComponentInput, ComponentOutput, ComponentCacheRead, ComponentCacheCreation:
			default:
				p.Addf("component", "must be one of total, input, output, cacheRead, cacheCreation, got %q", c.Component)
			}
			checkUnavailable(&c.OnUnavailable, p)
		},
		func(_ context.Context, c *tokensUnderConfig, run *lux.Run) (lux.Result, error) {
			m := run.Outcome
			if m == nil {
				return lux.Result{}, fmt.Errorf("assertion: tokens-under: %w", errNoMetadata)
			}
			detail := map[string]any{"component": c.Component, "max": *c.Max}
			u := m.Usage.Agent
			if u == nil {
				return unavailable(c.OnUnavailable, "the agent's token usage is", detail), nil
			}
			var n int64
			switch c.Component {
			case ComponentInput:
				n = u.Input
			case ComponentOutput:
				n = u.Output
			case ComponentCacheRead:
				n = u.CacheRead
			case ComponentCacheCreation:
				n = u.CacheCreation
			default:
				n = u.Input + u.Output
			}
			detail["tokens"] = n
			if n <= *c.Max {
				return Pass(fmt.Sprintf("%s tokens %d <= max %d", c.Component, n, *c.Max), detail), nil
			}
			return Fail(fmt.Sprintf("%s tokens %d > max %d", c.Component, n, *c.Max), detail), nil
		})
}

type costUnderConfig struct {
	MaxUSD        *float64 `json:"maxUsd"`
	OnUnavailable string   `json:"onUnavailable,omitempty"`
}

func costUnder() *lux.AssertionPlugin {
	return define("cost-under",
		"Passes when the agent's reported cost is at most maxUsd.",
		func(c *costUnderConfig, p *lux.Problems) {
			if c.MaxUSD == nil {
				p.AddFix("maxUsd", "required", "give the most US dollars the agent may spend")
			} else if *c.MaxUSD < 0 || math.IsNaN(*c.MaxUSD) {
				p.Addf("maxUsd", "must not be negative, got %v", *c.MaxUSD)
			}
			checkUnavailable(&c.OnUnavailable, p)
		},
		func(_ context.Context, c *costUnderConfig, run *lux.Run) (lux.Result, error) {
			m := run.Outcome
			if m == nil {
				return lux.Result{}, fmt.Errorf("assertion: cost-under: %w", errNoMetadata)
			}
			detail := map[string]any{"maxUsd": *c.MaxUSD}
			cost := m.Usage.AgentCostUSD
			if cost == nil {
				return unavailable(c.OnUnavailable, "the agent's cost is", detail), nil
			}
			detail["costUsd"] = *cost
			if *cost <= *c.MaxUSD {
				return Pass(fmt.Sprintf("cost $%.4f <= max $%.4f", *cost, *c.MaxUSD), detail), nil
			}
			return Fail(fmt.Sprintf("cost $%.4f > max $%.4f", *cost, *c.MaxUSD), detail), nil
		})
}

type artifactBytesUnderConfig struct {
	Max           *int64 `json:"max"`
	OnUnavailable string `json:"onUnavailable,omitempty"`
}

func artifactBytesUnder() *lux.AssertionPlugin {
	return define("artifact-bytes-under",
		"Passes when the collected artifacts add up to at most max bytes.",
		func(c *artifactBytesUnderConfig, p *lux.Problems) {
			if c.Max == nil {
				p.AddFix("max", "required", "give the most bytes the artifacts may add up to")
			} else if *c.Max < 0 {
				p.Addf("max", "must not be negative, got %d", *c.Max)
			}
			checkUnavailable(&c.OnUnavailable, p)
		},
		func(_ context.Context, c *artifactBytesUnderConfig, run *lux.Run) (lux.Result, error) {
			detail := map[string]any{"max": *c.Max}
			n, count, ok := artifactBytes(run)
			if !ok {
				return unavailable(c.OnUnavailable, "the artifacts' sizes are", detail), nil
			}
			detail["bytes"], detail["count"] = n, count
			if n <= *c.Max {
				return Pass(fmt.Sprintf("artifacts %d bytes <= max %d", n, *c.Max), detail), nil
			}
			return Fail(fmt.Sprintf("artifacts %d bytes > max %d", n, *c.Max), detail), nil
		})
}

// artifactBytes adds up the collected artifacts. It reports false when the
// artifacts were not collected: collection failed, or the run carries
// neither artifacts nor metadata.
func artifactBytes(run *lux.Run) (bytes int64, count int, ok bool) {
	m := run.Outcome
	if m != nil && m.FailedPhase == "collection" {
		return 0, 0, false
	}
	if len(run.Artifacts) > 0 {
		for _, a := range run.Artifacts {
			bytes += a.Size
		}
		return bytes, len(run.Artifacts), true
	}
	if m == nil {
		return 0, 0, run.Artifacts != nil
	}
	return m.ArtifactBytes, m.ArtifactCount, true
}
