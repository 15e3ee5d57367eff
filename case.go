package lux

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux/internal/jsonerr"
)

// Case is one evaluation: a prompt for an agent, the workspace it starts
// from, and the assertions that grade what it did.
type Case struct {
	// ID identifies the case across runs; repetitions share it. Empty means
	// derived from the file name (see CanonicalID).
	ID      string `json:"id,omitempty"`
	Prompt  string `json:"prompt"`
	Persona string `json:"persona,omitempty"` // who the answerer plays
	// Driver and Answerer name plugins of the Registry, with their config.
	// A nil Driver uses the orchestrator's default driver.
	Driver   *PluginRef `json:"driver,omitempty"`
	Answerer *PluginRef `json:"answerer,omitempty"`
	// Fixtures is a directory copied into a fresh workspace for every run;
	// a relative path is relative to the case file's directory.
	Fixtures   string          `json:"fixtures,omitempty"`
	Assertions []AssertionSpec `json:"assertions,omitempty"`
	Tags       []string        `json:"tags,omitempty"`
	// Cluster groups cases that are not independent (variants of one
	// scenario, cases over one repository): statistics treat a cluster as
	// one independent unit.
	Cluster string `json:"cluster,omitempty"`
	// Requires lists driver capabilities the case needs; a driver that does
	// not declare them all is refused before anything runs.
	Requires []Capability `json:"requires,omitempty"`
	// Timeout is the run's wall-clock limit ("45m"; milliseconds as a
	// number); zero means the orchestrator's RunTimeout (default 30m). A
	// run past it is stopped and ends with exit reason timeout.
	Timeout Duration `json:"timeout,omitempty"`
	// MaxTokens and MaxCostUSD are the run's budget: the agent's tokens
	// (all four counts, summed from its usage reports as they arrive) and
	// its cost in US dollars (as it reports it, usually only at its end).
	// Past either the run is stopped and ends with exit reason budget.
	// Zero means the orchestrator's (Options.RunBudget), else none.
	MaxTokens  int64          `json:"maxTokens,omitempty"`
	MaxCostUSD float64        `json:"maxCostUsd,omitempty"`
	Meta       map[string]any `json:"meta,omitempty"`

	// Path is the file the case was loaded from, if any.
	Path string `json:"-"`
}

// CanonicalID is the case's identity across runs: ID, else the base name of
// Path without its extensions, else "inline".
func (c *Case) CanonicalID() string {
	if c.ID != "" {
		return c.ID
	}
	if c.Path != "" {
		base := filepath.Base(c.Path)
		if i := strings.Index(base, "."); i > 0 {
			base = base[:i]
		}
		return base
	}
	return "inline"
}

// FixturesDir returns the fixtures directory resolved against the case
// file's directory, or "" when the case has no fixtures.
func (c *Case) FixturesDir() string {
	if c.Fixtures == "" || filepath.IsAbs(c.Fixtures) || c.Path == "" {
		return c.Fixtures
	}
	return filepath.Join(filepath.Dir(c.Path), c.Fixtures)
}

// PluginRef names a plugin and carries its config. In JSON it is the name
// alone ("subprocess") or {"name": ..., "config": {...}}. Config may be a
// json.RawMessage, a map, or the plugin's own config struct.
type PluginRef struct {
	Name   string `json:"name"`
	Config any    `json:"config,omitempty"`
}

// UnmarshalJSON accepts a name or a strict {name, config} object; the
// config is kept raw for the plugin to decode.
func (r *PluginRef) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*r = PluginRef{Name: name}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("must be a plugin name or {\"name\": ..., \"config\": {...}}")
	}
	var p Problems
	for _, k := range sortedKeys(obj) {
		if k != "name" && k != "config" {
			p.addUnknown(k, "known fields: name, config")
		}
	}
	*r = PluginRef{}
	if raw, ok := obj["name"]; ok {
		if err := json.Unmarshal(raw, &r.Name); err != nil {
			p.Add("name", typeProblem(err))
		}
	}
	if raw, ok := obj["config"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		r.Config = raw
	}
	return p.Err(nil)
}

// AssertionSpec is an assertion of a case: its type, identity, weight and
// threshold, and its own config. In JSON all of them are fields of one flat
// object, e.g. {"type": "file-exists", "id": "readme", "path": "README.md"}.
type AssertionSpec struct {
	ID   string // stable identity across runs; default "<type>:<index+1>"
	Type string // the assertion plugin
	Name string // display name; default the type and its config
	// Weight in the case score; 0 means 1. Threshold is the lowest score
	// that passes, in [0,1]; 0 means no floor beyond the check's own verdict.
	Weight    float64
	Threshold float64
	Config    map[string]any // the plugin's own fields
}

var specFields = map[string]bool{"id": true, "type": true, "name": true, "weight": true, "threshold": true}

// MarshalJSON writes the flat form.
func (s AssertionSpec) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(s.Config)+5)
	for k, v := range s.Config {
		m[k] = v
	}
	m["type"] = s.Type
	if s.ID != "" {
		m["id"] = s.ID
	}
	if s.Name != "" {
		m["name"] = s.Name
	}
	if s.Weight != 0 {
		m["weight"] = s.Weight
	}
	if s.Threshold != 0 {
		m["threshold"] = s.Threshold
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat form.
func (s *AssertionSpec) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("must be an object with a \"type\" field")
	}
	*s = AssertionSpec{}
	var p Problems
	str := func(k string, dst *string) {
		if v, ok := m[k]; ok {
			if sv, ok := v.(string); ok {
				*dst = sv
			} else {
				p.Add(k, "must be a string, got "+jsonValueKind(v))
			}
		}
	}
	num := func(k string, dst *float64) {
		if v, ok := m[k]; ok {
			if nv, ok := v.(float64); ok {
				*dst = nv
			} else {
				p.Add(k, "must be a number, got "+jsonValueKind(v))
			}
		}
	}
	str("id", &s.ID)
	str("type", &s.Type)
	str("name", &s.Name)
	num("threshold", &s.Threshold)
	num("weight", &s.Weight)
	if err := p.Err(nil); err != nil {
		return err
	}
	for k, v := range m {
		if !specFields[k] {
			if s.Config == nil {
				s.Config = map[string]any{}
			}
			s.Config[k] = v
		}
	}
	return nil
}

// EffectiveID is the spec's ID or "<type>:<index+1>" for the index-th assertion.
func (s AssertionSpec) EffectiveID(index int) string {
	if s.ID != "" {
		return s.ID
	}
	return fmt.Sprintf("%s:%d", s.Type, index+1)
}

// EffectiveWeight is Weight, or 1 when unset.
func (s AssertionSpec) EffectiveWeight() float64 {
	if s.Weight == 0 {
		return 1
	}
	return s.Weight
}

// DisplayName is Name, or the type followed by its config as key=value.
func (s AssertionSpec) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	parts := []string{s.Type}
	for _, k := range sortedKeys(s.Config) {
		v := s.Config[k]
		if sv, ok := v.(string); ok {
			parts = append(parts, k+"="+sv)
			continue
		}
		b, _ := json.Marshal(v)
		parts = append(parts, k+"="+string(b))
	}
	return strings.Join(parts, " ")
}

// Validate checks the case on its own (plugins and their configs are
// checked by the orchestrator, which knows the registry). It returns every
// problem at once, wrapping ErrInvalidCase, each naming its field path.
func (c *Case) Validate() error {
	var p Problems
	if strings.TrimSpace(c.Prompt) == "" {
		p.AddFix("prompt", "required", "say what the agent should do")
	} else if i := strings.IndexByte(c.Prompt, 0); i >= 0 {
		p.AddFix("prompt", fmt.Sprintf("contains a NUL byte (at byte %d)", i), "remove it: no agent can be given a prompt holding one")
	}
	if strings.ContainsAny(c.ID, "\x00\\") || strings.HasPrefix(c.ID, "/") || hasDotDot(c.ID) {
		p.AddFix("id", fmt.Sprintf("%q is not a usable id", c.ID), "use letters, digits, '-', '_' and '/' between names")
	}
	checkRef(&p, "driver", c.Driver)
	checkRef(&p, "answerer", c.Answerer)
	if strings.ContainsRune(c.Fixtures, 0) {
		p.Add("fixtures", "contains a NUL byte")
	}
	seen := map[string]int{}
	for i, a := range c.Assertions {
		at := fmt.Sprintf("assertions[%d]", i)
		if strings.TrimSpace(a.Type) == "" {
			p.AddFix(at+".type", "required", "name an assertion type such as \"file-exists\"")
		}
		id := a.EffectiveID(i)
		if j, dup := seen[id]; dup {
			p.AddFix(at+".id", fmt.Sprintf("duplicate id %q", id), fmt.Sprintf("assertions[%d] has it too; give each assertion its own id", j))
		} else {
			seen[id] = i
		}
		if a.Weight < 0 || math.IsNaN(a.Weight) || math.IsInf(a.Weight, 0) {
			p.AddFix(at+".weight", fmt.Sprintf("must be positive, got %v", a.Weight), "leave it out for weight 1")
		}
		if a.Threshold < 0 || a.Threshold > 1 || math.IsNaN(a.Threshold) {
			p.Addf(at+".threshold", "must be between 0 and 1, got %v", a.Threshold)
		}
	}
	if c.MaxTokens < 0 {
		p.AddFix("maxTokens", fmt.Sprintf("must be positive, got %d", c.MaxTokens), "give the most tokens a run may spend, or leave it out")
	}
	if c.MaxCostUSD < 0 || math.IsNaN(c.MaxCostUSD) || math.IsInf(c.MaxCostUSD, 0) {
		p.AddFix("maxCostUsd", fmt.Sprintf("must be a positive number of US dollars, got %v", c.MaxCostUSD), "give the most a run may cost, or leave it out")
	}
	if c.Timeout < 0 {
		p.AddFix("timeout", fmt.Sprintf("must be positive, got %s", c.Timeout), `use a duration such as "45m", or leave it out for the orchestrator's limit`)
	}
	for i, t := range c.Tags {
		if strings.TrimSpace(t) == "" {
			p.Add(fmt.Sprintf("tags[%d]", i), "must not be empty")
		}
	}
	for i, r := range c.Requires {
		if strings.TrimSpace(string(r)) == "" {
			p.Add(fmt.Sprintf("requires[%d]", i), "must not be empty")
		}
	}
	return p.Err(ErrInvalidCase)
}

func hasDotDot(id string) bool {
	for _, part := range strings.Split(id, "/") {
		if part == ".." || part == "." {
			return true
		}
	}
	return false
}

func checkRef(p *Problems, path string, r *PluginRef) {
	if r == nil {
		return
	}
	if strings.TrimSpace(r.Name) == "" {
		p.AddFix(path+".name", "required", "name a registered plugin")
	}
	if _, err := ConfigJSON(r.Config); err != nil {
		p.Add(path+".config", err.Error())
	}
}

// ParseCase decodes a case from JSON strictly: unknown fields are errors.
// Each validate function (Case.Validate, say, or an orchestrator's
// Validate, which also checks the plugins' configs) runs in the same pass,
// on the case as far as it decoded, so a misspelt field does not hide the
// other problems of the case; a problem it reports at a field whose value
// did not decode is left out (see DecodeConfig). Without validate
// functions only the JSON is checked. On any problem the case is nil and
// the error wraps ErrInvalidCase.
func ParseCase(data []byte, validate ...func(*Case) error) (*Case, error) {
	return parseCase(data, "", validate)
}

// parseCase is ParseCase for a case read from path (set as the case's
// Path before validation, since fixtures and commands are relative to it).
func parseCase(data []byte, path string, validate []func(*Case) error) (*Case, error) {
	var p Problems
	generic, err := decodeGeneric(data)
	if err != nil {
		p.Add("", jsonerr.NotValid(data, err))
		return nil, p.Err(ErrInvalidCase)
	}
	if _, ok := generic.(map[string]any); !ok {
		p.Addf("", "must be a JSON object, got %s", jsonKind(generic))
		return nil, p.Err(ErrInvalidCase)
	}
	c := &Case{Path: path} // DecodeConfig keeps it: it is no JSON field
	checks := make([]func() error, len(validate))
	for i, v := range validate {
		checks[i] = func() error { return v(c) }
	}
	if err := DecodeConfig(data, c, checks...); err != nil {
		p.Merge("", err)
		return nil, p.Err(ErrInvalidCase)
	}
	return c, nil
}

// ReadCase reads a case file (JSON) as ParseCase does, running validate in
// the same pass; the case's Path is path. Errors name the file and every
// problem in it.
func ReadCase(path string, validate ...func(*Case) error) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lux: case %s: %w", path, err)
	}
	c, err := parseCase(data, path, validate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
