package rubric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/glob"
)

// Type is the assertion type.
const Type = "rubric"

// DefaultThreshold is the score that passes when the spec sets no threshold.
const DefaultThreshold = 0.8

// Attempts is how many answers the judge is asked for before an invalid
// one is an error.
const Attempts = 2

// Limits of the config.
const (
	MaxCriteria  = 8000
	maxTaskChars = 20000
	maxRawShown  = 1000
)

// Config is the rubric's config.
type Config struct {
	harness.Config
	// Criteria is what the judge grades the run on.
	Criteria string `json:"criteria"`
	// Evidence selects the evidence the judge sees and its budgets.
	Evidence Evidence `json:"evidence"`
}

// Evidence selects the evidence a judge sees. Zero fields take the
// defaults of the package documentation.
type Evidence struct {
	EventTypes              []string `json:"eventTypes,omitempty"`
	ToolDetail              string   `json:"toolDetail,omitempty"`
	Artifacts               []string `json:"artifacts,omitempty"`
	IncludeArtifactContents *bool    `json:"includeArtifactContents,omitempty"`
	MaxEvents               int      `json:"maxEvents,omitempty"`
	MaxAgentChars           int      `json:"maxAgentChars,omitempty"`
	MaxToolChars            int      `json:"maxToolChars,omitempty"`
	MaxArtifactChars        int      `json:"maxArtifactChars,omitempty"`
	MaxArtifactExcerpt      int      `json:"maxArtifactExcerpt,omitempty"`
	MaxPromptChars          int      `json:"maxPromptChars,omitempty"`
}

// The event types evidence can select.
var EventTypes = []string{"agent-message", "tool-call", "tool-result", "interrupt", "responded", "terminal"}

// The tool detail levels.
const (
	ToolNames            = "names"
	ToolInputs           = "inputs"
	ToolInputsAndResults = "inputs-and-results"
)

func (e Evidence) withDefaults() Evidence {
	if e.EventTypes == nil {
		e.EventTypes = []string{"agent-message", "tool-call", "interrupt", "responded", "terminal"}
	}
	if e.ToolDetail == "" {
		e.ToolDetail = ToolNames
	}
	if e.Artifacts == nil {
		e.Artifacts = []string{"**/*"}
	}
	if e.IncludeArtifactContents == nil {
		yes := true
		e.IncludeArtifactContents = &yes
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&e.MaxEvents, 30)
	def(&e.MaxAgentChars, 30000)
	def(&e.MaxToolChars, 20000)
	def(&e.MaxArtifactChars, 60000)
	def(&e.MaxArtifactExcerpt, 4000)
	def(&e.MaxPromptChars, 120000)
	return e
}

// bound is one numeric budget's limits.
type bound struct {
	name     string
	v        int
	min, max int
}

func (e Evidence) validate(p *lux.Problems) []glob.Glob {
	for i, t := range e.EventTypes {
		if !contains(EventTypes, t) {
			p.AddFix(fmt.Sprintf("evidence.eventTypes[%d]", i), fmt.Sprintf("unknown event type %q", t), "use "+strings.Join(EventTypes, ", "))
		}
	}
	switch e.ToolDetail {
	case ToolNames, ToolInputs, ToolInputsAndResults:
	default:
		p.AddFix("evidence.toolDetail", fmt.Sprintf("unknown level %q", e.ToolDetail), "use names, inputs or inputs-and-results")
	}
	if len(e.Artifacts) > 50 {
		p.Addf("evidence.artifacts", "at most 50 globs, got %d", len(e.Artifacts))
	}
	var globs []glob.Glob
	for i, g := range e.Artifacts {
		c, err := glob.Compile(g)
		if err != nil {
			p.AddFix(fmt.Sprintf("evidence.artifacts[%d]", i), err.Error(), `give a slash-separated glob relative to the workspace, such as "docs/**/*.md"`)
			continue
		}
		globs = append(globs, c)
	}
	for _, b := range []bound{
		{"maxEvents", e.MaxEvents, 1, 200},
		{"maxAgentChars", e.MaxAgentChars, 1, 60000},
		{"maxToolChars", e.MaxToolChars, 1, 60000},
		{"maxArtifactChars", e.MaxArtifactChars, 1, 80000},
		{"maxArtifactExcerpt", e.MaxArtifactExcerpt, 1, 20000},
		{"maxPromptChars", e.MaxPromptChars, 1000, 400000},
	} {
		if b.v < b.min || b.v > b.max {
			p.Addf("evidence."+b.name, "must be between %d and %d, got %d", b.min, b.max, b.v)
		}
	}
	return globs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Options configures the plugin. The zero value uses the built-in
// harness providers.
type Options struct {
	// Factory builds the judge's model; nil means harness.New.
	Factory harness.Factory
}

// Plugin returns the rubric assertion, judging with the built-in providers.
func Plugin() *lux.AssertionPlugin { return PluginWith(Options{}) }

// PluginWith returns the rubric assertion with opts, e.g. a judge of your
// own (an HTTP client) through Options.Factory.
func PluginWith(opts Options) *lux.AssertionPlugin {
	return &lux.AssertionPlugin{
		Type:             Type,
		Doc:              "A model judges the run against criteria and answers with a score in [0,1]; passes at the threshold (default 0.8). A failed or invalid judge answer leaves the case without a verdict.",
		Version:          "1",
		Harness:          true,
		DefaultThreshold: DefaultThreshold,
		Parse: func(raw json.RawMessage) (lux.Check, error) {
			var c Config
			var globs []glob.Glob
			var model harness.Model
			validate := func() error {
				var p lux.Problems
				switch {
				case strings.TrimSpace(c.Criteria) == "":
					p.AddFix("criteria", "required", "say what the judge should check, e.g. \"The README explains how to run the tests.\"")
				case len(c.Criteria) > MaxCriteria:
					p.Addf("criteria", "at most %d characters, got %d", MaxCriteria, len(c.Criteria))
				}
				c.Evidence = c.Evidence.withDefaults()
				globs = c.Evidence.validate(&p)
				c.Config, model = harness.Build(opts.Factory, c.Config, &p)
				return p.Err(nil)
			}
			if err := lux.DecodeConfig(raw, &c, validate); err != nil {
				return nil, err
			}
			return &judge{cfg: c, globs: globs, model: model}, nil
		},
	}
}

// judge is a configured rubric.
type judge struct {
	cfg   Config
	globs []glob.Glob
	model harness.Model
}

// MarshalJSON is the config, so the check's identity can be hashed.
func (j *judge) MarshalJSON() ([]byte, error) { return json.Marshal(j.cfg) }

// Evaluate asks the judge, up to Attempts times, and grades by its score.
func (j *judge) Evaluate(ctx context.Context, run *lux.Run) (lux.Result, error) {
	if run == nil {
		return lux.Result{}, errors.New("rubric: no run to grade")
	}
	fence := harness.NewFence()
	prompt := buildPrompt(run, j.cfg, j.globs, fence)
	req := harness.Request{System: systemPrompt(fence), Prompt: prompt}
	var usage lux.ModelUsage
	name := j.model.Name()
	var raw string
	for attempt := 1; attempt <= Attempts; attempt++ {
		resp, err := j.model.Complete(ctx, req)
		if err != nil {
			usage.Call(lux.TokenUsage{}, nil)
			why := "call-failed"
			if ctx.Err() != nil {
				why = "aborted"
			}
			return lux.Result{Usage: &usage}, fmt.Errorf("rubric: judge %s (%s, attempt %d): %w", name, why, attempt, err)
		}
		usage.Call(resp.Usage, resp.CostUSD)
		if resp.Model != "" {
			name = providerOf(j.model.Name()) + ":" + resp.Model
		}
		raw = resp.Text
		v, perr := parseVerdict(resp.Text)
		if perr != nil {
			req.Prompt = prompt + "\n\nYour previous answer was not valid: " + perr.Error() +
				". Answer again with only the JSON object {\"score\": <number from 0 to 1>, \"comment\": \"<one sentence>\"}."
			continue
		}
		detail := map[string]any{
			"judge": name, "attempts": attempt, "costUsd": usage.CostUSD,
			"unpricedAttempts": usage.UnpricedCalls, "raw": harness.Clamp(raw, maxRawShown),
		}
		return lux.Result{Passed: true, Score: v.Score, Comment: v.Comment, Detail: detail, Usage: &usage}, nil
	}
	return lux.Result{Usage: &usage}, fmt.Errorf("rubric: judge %s gave no valid verdict in %d attempts (invalid-response); its last answer: %q",
		name, Attempts, harness.Clamp(raw, 200))
}

func providerOf(name string) string {
	p, _, _ := strings.Cut(name, ":")
	return p
}
