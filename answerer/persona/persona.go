package persona

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
)

// Name is the answerer's name.
const Name = "persona"

// Defaults of the config.
const (
	DefaultMaxHistory = 20
	DefaultMaxChars   = 2000
	maxTaskChars      = 20000
	maxPersonaChars   = 8000
)

// Config is the persona answerer's config.
type Config struct {
	harness.Config
	// MaxHistory is how many earlier exchanges the model sees; default 20.
	MaxHistory int `json:"maxHistory,omitempty"`
	// MaxChars clamps every string from the agent or an earlier answer;
	// default 2000.
	MaxChars int `json:"maxChars,omitempty"`

	model harness.Model
}

// Options configures the plugin; the zero value uses the built-in
// harness providers.
type Options struct {
	// Factory builds the model; nil means harness.New.
	Factory harness.Factory
}

// Plugin returns the persona answerer with the built-in providers.
func Plugin() *lux.AnswererPlugin { return PluginWith(Options{}) }

// PluginWith returns the persona answerer with opts.
func PluginWith(opts Options) *lux.AnswererPlugin {
	return &lux.AnswererPlugin{
		Name:    Name,
		Doc:     "A model plays the user the case's persona describes; approvals it does not clearly give are denials.",
		Harness: true,
		Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) {
			c := &Config{}
			validate := func() error {
				var p lux.Problems
				if c.MaxHistory < 0 || c.MaxHistory > 200 {
					p.Addf("maxHistory", "must be between 0 and 200, got %d", c.MaxHistory)
				}
				if c.MaxChars < 0 || c.MaxChars > 20000 {
					p.Addf("maxChars", "must be between 0 and 20000, got %d", c.MaxChars)
				}
				c.Config, c.model = harness.Build(opts.Factory, c.Config, &p)
				return p.Err(nil)
			}
			if err := lux.DecodeConfig(raw, c, validate); err != nil {
				return nil, err
			}
			if c.MaxHistory == 0 {
				c.MaxHistory = DefaultMaxHistory
			}
			if c.MaxChars == 0 {
				c.MaxChars = DefaultMaxChars
			}
			return c, nil
		},
	}
}

// Prepare returns the answerer of one run.
func (c *Config) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	return &answerer{cfg: c, info: info}, nil
}

type answerer struct {
	cfg  *Config
	info lux.AnswererInfo

	mu    sync.Mutex
	usage lux.ModelUsage
}

func (a *answerer) Usage() lux.ModelUsage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

func (a *answerer) Close() error { return nil }

// Answer asks the model to answer in as the user.
func (a *answerer) Answer(ctx context.Context, in lux.Interrupt, history []lux.Exchange) (lux.Answer, error) {
	fence := harness.NewFence()
	req := harness.Request{
		System: systemPrompt(a.info, fence),
		Prompt: userPrompt(in, history, a.cfg.MaxHistory, a.cfg.MaxChars, fence),
	}
	resp, err := a.cfg.model.Complete(ctx, req)
	a.mu.Lock()
	if err != nil {
		a.usage.Call(lux.TokenUsage{}, nil)
	} else {
		a.usage.Call(resp.Usage, resp.CostUSD)
	}
	a.mu.Unlock()
	if err != nil {
		return lux.Answer{}, fmt.Errorf("persona: %w", err)
	}
	return parseAnswer(in, resp.Text)
}

// parseAnswer turns the model's text into the answer to in.
func parseAnswer(in lux.Interrupt, text string) (lux.Answer, error) {
	out := lux.Answer{Kind: in.Kind, ID: in.ID}
	text = strings.TrimSpace(text)
	switch in.Kind {
	case lux.Ask:
		if text == "" {
			return lux.Answer{}, fmt.Errorf("persona: the model gave an empty answer to %q", harness.Clamp(in.Question, 200))
		}
		out.Text = text
	case lux.Approve:
		out.Approved, out.Reason = approval(text)
	default:
		var v any
		if err := json.Unmarshal([]byte(unfence(text)), &v); err == nil {
			out.Payload = v
		} else {
			out.Payload = map[string]any{"text": text}
		}
	}
	return out, nil
}
