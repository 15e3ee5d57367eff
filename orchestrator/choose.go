package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/command"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/safecall"
)

// Source says what chose a case's driver or answerer (see Choose).
type Source string

// The sources of a driver or answerer, from the lowest precedence to the
// highest.
const (
	// FromDefault: the case names none; the default (Options.DefaultDriver,
	// Options.DefaultAnswerer) applies.
	FromDefault Source = "default"
	// FromCase: the case's own, alone (no default, or a default naming
	// another plugin).
	FromCase Source = "case"
	// FromCaseOverDefault: the case names the default's plugin; the two
	// configs merge, objects key by key, the case's values winning.
	FromCaseOverDefault Source = "case+default"
	// FromOverride: the override (Options.Driver, Options.Answerer), whatever
	// the case names; nothing of the case's own config is used.
	FromOverride Source = "override"
)

// Choice is the driver or answerer a case runs with, and what chose it.
type Choice struct {
	// Ref is the plugin and config that run; nil when nothing names one.
	Ref    *lux.PluginRef
	Source Source
	// Replaced is the case's own reference that an override replaced; nil
	// when the case names none, names exactly the override, or names the
	// override's plugin with no config.
	Replaced *lux.PluginRef
}

// Choose applies the precedence rule to one case's driver (or answerer):
// own is what the case names, def the default, over the override.
//
//   - An override replaces whatever the case names, plugin and config
//     whole: the case's own config is never merged into another choice's
//     (its args or env belong to its own command). What it replaced is in
//     Replaced, so that the caller can say so.
//   - Without an override, a case that names its own uses it; when it
//     names the default's plugin, the default's config fills what the
//     case's leaves out (objects merge key by key, the case winning).
//   - A case that names none takes the default.
//
// The error is a config that is not a JSON object where a merge needs one.
func Choose(own, def, over *lux.PluginRef) (Choice, error) {
	switch {
	case over != nil:
		ch := Choice{Ref: over, Source: FromOverride}
		if own != nil && replaces(over, own) {
			ch.Replaced = own
		}
		return ch, nil
	case own == nil && def == nil:
		return Choice{}, nil
	case own == nil:
		return Choice{Ref: def, Source: FromDefault}, nil
	case def == nil || def.Name != own.Name || def.Config == nil:
		return Choice{Ref: own, Source: FromCase}, nil
	}
	ref, err := mergeRefs(def, own)
	if err != nil {
		return Choice{}, err
	}
	return Choice{Ref: ref, Source: FromCaseOverDefault}, nil
}

// replaces reports whether the override over sets aside something the
// case's own reference says: another plugin, or a config (compared as
// canonical JSON) other than the override's. A case naming the override's
// plugin alone, with no config, loses nothing.
func replaces(over, own *lux.PluginRef) bool {
	if own.Name != over.Name {
		return true
	}
	co, errO := canonicalConfig(own.Config)
	if errO == nil && co == "{}" {
		return false
	}
	cv, errV := canonicalConfig(over.Config)
	return errO != nil || errV != nil || co != cv
}

func canonicalConfig(v any) (string, error) {
	raw, err := lux.ConfigJSON(v)
	if err != nil {
		return "", err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", nil
	}
	c, err := digest.CanonicalJSON(raw)
	return string(c), err
}

// mergeRefs merges the case's own reference over a default naming the same
// plugin: the default's config fills what the case's leaves out, objects
// key by key, the case's values winning.
func mergeRefs(def, own *lux.PluginRef) (*lux.PluginRef, error) {
	if own.Config == nil {
		return &lux.PluginRef{Name: own.Name, Config: def.Config}, nil
	}
	var base, over any
	for _, x := range []struct {
		v   any
		dst *any
	}{{def.Config, &base}, {own.Config, &over}} {
		raw, err := lux.ConfigJSON(x.v)
		if err != nil {
			return nil, err
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber() // numbers pass through as written, never through a float
		if err := d.Decode(x.dst); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
	}
	merged, err := json.Marshal(deepMerge(base, over))
	if err != nil {
		return nil, err
	}
	return &lux.PluginRef{Name: own.Name, Config: json.RawMessage(merged)}, nil
}

func deepMerge(base, over any) any {
	bm, ok1 := base.(map[string]any)
	om, ok2 := over.(map[string]any)
	if !ok1 || !ok2 {
		return over
	}
	out := make(map[string]any, len(bm)+len(om))
	for k, v := range bm {
		out[k] = v
	}
	for k, v := range om {
		out[k] = deepMerge(bm[k], v)
	}
	return out
}

// CaseDriver is what a case will run: its driver, the executables the
// driver will start, and what chose them.
type CaseDriver struct {
	CaseID string `json:"caseId"`
	Driver string `json:"driver"`
	Source Source `json:"source"`
	// By names the source as the caller spells it: "the case", or the
	// option's name (see Options.OptionNames), "-driver" on the command
	// line.
	By string `json:"by"`
	// Commands are the executables, found as the driver finds them
	// (command.Find): absolute paths, or as configured when not found.
	Commands []string `json:"commands"`
	// Configured are the commands as the config names them.
	Configured []string `json:"configured"`
	// Replaced is the case's own driver that an override replaced.
	Replaced *lux.PluginRef `json:"replaced,omitempty"`
	// Own are the commands, as configured, that the case would run on its
	// own: its own driver's when an override replaced it, the driver's
	// default when the case names none (none when that config does not
	// parse); OwnLabel says which ("the case's own", "the driver's
	// default").
	Own      []string `json:"own,omitempty"`
	OwnLabel string   `json:"ownLabel,omitempty"`
	// Answerer is the answerer the case runs with ("" for none);
	// AnswererBy and AnswererReplaced say what chose it and which of the
	// case's own it replaced, as By and Replaced do for the driver.
	Answerer         string         `json:"answerer,omitempty"`
	AnswererBy       string         `json:"answererBy,omitempty"`
	AnswererReplaced *lux.PluginRef `json:"answererReplaced,omitempty"`
	// Differs is true when the commands are not those the case would run
	// on its own: an override replaced the case's own with other
	// commands, or a case that names no driver runs other commands than
	// the driver's defaults.
	Differs bool `json:"differs"`
}

// Drivers returns what each case will run, in order, by the precedence
// rule (see Choose). An invalid case is an error, as Validate's.
func (o *Orchestrator) Drivers(cases []*lux.Case) ([]CaseDriver, error) {
	var out []CaseDriver
	for _, c := range cases {
		p, err := o.plan(c)
		if err != nil {
			return nil, err
		}
		cd := CaseDriver{CaseID: p.caseID, Driver: p.driverName, Source: p.driverChoice.Source, By: o.sourceName(p.driverChoice.Source, "Driver"),
			Configured: p.runtime.Commands, Replaced: p.driverChoice.Replaced,
			AnswererReplaced: p.answererChoice.Replaced}
		if p.answererName != "" {
			cd.Answerer, cd.AnswererBy = p.answererName, o.sourceName(p.answererChoice.Source, "Answerer")
		}
		for _, name := range p.runtime.Commands {
			cd.Commands = append(cd.Commands, findOr(p.caseDir, name, p.runtime.SearchPath))
		}
		var baseline []string // what the case would run on its own
		switch {
		case cd.Replaced != nil:
			rt := o.runtimeOf(cd.Replaced)
			cd.Own, cd.OwnLabel = rt.Commands, "the case's own"
			dir := commandDir(c, FromCase)
			for _, name := range cd.Own {
				baseline = append(baseline, findOr(dir, name, rt.SearchPath))
			}
			cd.Differs = !slices.Equal(baseline, cd.Commands) || len(baseline) == 0
		case c.Driver == nil:
			cd.Own, cd.OwnLabel = o.runtimeOf(&lux.PluginRef{Name: p.driverName}).Commands, "the driver's default"
			for _, name := range cd.Own {
				baseline = append(baseline, findOr("", name, ""))
			}
			cd.Differs = len(baseline) > 0 && !slices.Equal(baseline, cd.Commands)
		}
		out = append(out, cd)
	}
	return out, nil
}

// sourceName spells src for the option field (Driver or Answerer).
func (o *Orchestrator) sourceName(src Source, field string) string {
	switch src {
	case FromOverride:
		return o.optionName(field)
	case FromDefault:
		return o.optionName("Default" + field)
	case FromCaseOverDefault:
		return "the case, over " + o.optionName("Default"+field)
	}
	return "the case"
}

// runtimeOf returns the runtime ref's driver declares (its commands as
// configured); none when its config does not parse.
func (o *Orchestrator) runtimeOf(ref *lux.PluginRef) lux.Runtime {
	var rt lux.Runtime
	plugin, err := o.reg.Driver(ref.Name)
	if err != nil {
		return rt
	}
	_ = safecall.Protect(func() error {
		raw, err := lux.ConfigJSON(ref.Config)
		if err != nil {
			return err
		}
		if raw == nil {
			raw = json.RawMessage("{}")
		}
		cfg, err := plugin.Parse(raw)
		if err != nil || cfg == nil {
			return err
		}
		rt = cfg.Runtime()
		return nil
	})
	return rt
}

// findOr returns the executable command.Find finds, or name as configured.
func findOr(dir, name, searchPath string) string {
	if p, err := command.Find(dir, name, searchPath); err == nil {
		return p
	}
	return name
}
