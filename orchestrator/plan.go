package orchestrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
)

// plan is a validated case, resolved against the registry: what every run
// of the case uses. Plans are shared by the repetitions of a suite.
type plan struct {
	c            *lux.Case
	caseID       string
	driverName   string
	driver       lux.DriverConfig
	runtime      lux.Runtime
	answererName string
	answerer     lux.AnswererConfig // nil: interrupts fail the run
	checks       []check
	fixturesDir  string
	caseDir      string // what the driver's relative command paths resolve against
	hashes       planHashes
}

// check is one assertion of the plan.
type check struct {
	spec    lux.AssertionSpec
	id      string
	plugin  *lux.AssertionPlugin
	checker lux.Check
}

type planHashes struct {
	caseHash, assertionsHash, driverConfigHash, answererConfigHash, evaluatorConfigHash string
}

// Validate checks c against the registry without running anything: the
// case itself, its driver and answerer (or the defaults) and their
// configs, every assertion and its config, its fixtures directory, and
// that the driver declares every capability the case requires. It returns
// every problem at once, each with its field path, such as
// `driver.config.idleTimeout: must be positive` or `assertions[2].path:
// required`. The error wraps lux.ErrInvalidCase, and also
// lux.ErrMissingCapability when a required capability is missing.
func (o *Orchestrator) Validate(c *lux.Case) error {
	_, err := o.plan(c)
	return err
}

func (o *Orchestrator) plan(c *lux.Case) (*plan, error) {
	if c == nil {
		return nil, errors.New("orchestrator: nil case")
	}
	var probs lux.Problems
	probs.Merge("", c.Validate())
	p := &plan{c: c, caseID: c.CanonicalID()}
	var capErr error
	// The plugins see the case with the subject root bound; the hashes
	// below are of the authored case.
	authored := c
	b := newBinder(o.opts.SubjectRoot, o.optionName("SubjectRoot"))
	c = b.bindCase(&probs, authored)

	// Driver.
	dref, derr := mergeRefs(b.ref(&probs, "driver", o.opts.DefaultDriver), c.Driver)
	switch {
	case derr != nil:
		probs.Add("driver.config", derr.Error())
	case dref == nil:
		probs.AddFix("driver", "required", "name a driver in the case or set "+o.optionName("DefaultDriver"))
	case strings.TrimSpace(dref.Name) == "":
		// reported by c.Validate
	default:
		p.driverName = dref.Name
		p.caseDir = commandDir(c)
		plugin, err := o.reg.Driver(dref.Name)
		if err != nil {
			probs.Add("driver.name", strings.TrimPrefix(err.Error(), "lux: "))
			break
		}
		raw, err := lux.ConfigJSON(dref.Config)
		if err != nil {
			probs.Add("driver.config", err.Error())
			break
		}
		var cfg lux.DriverConfig
		if err := protect(func() (err error) { cfg, err = plugin.Parse(raw); return err }); err != nil {
			probs.Merge("driver.config", err)
			break
		}
		if cfg == nil {
			probs.Addf("driver", "driver plugin %q returned no config", dref.Name)
			break
		}
		p.driver = cfg
		if err := protect(func() error { p.runtime = cfg.Runtime(); return nil }); err != nil {
			probs.Addf("driver", "driver plugin %q failed to declare its runtime: %v", dref.Name, err)
			break
		}
		if err := lux.CheckCapabilities(dref.Name, p.runtime, c.Requires); err != nil {
			capErr = err
			probs.AddFix("requires", strings.TrimPrefix(strings.TrimPrefix(err.Error(), lux.ErrMissingCapability.Error()), ": "),
				"use a driver that declares them, or drop them from requires")
		}
		if h, err := b.hashConfig(cfg); err != nil {
			probs.Add("driver.config", "the parsed config does not encode as JSON: "+err.Error())
		} else {
			p.hashes.driverConfigHash = h
		}
	}

	// Answerer.
	aref, aerr := mergeRefs(b.ref(&probs, "answerer", o.opts.DefaultAnswerer), c.Answerer)
	switch {
	case aerr != nil:
		probs.Add("answerer.config", aerr.Error())
	case aref == nil || strings.TrimSpace(aref.Name) == "":
	default:
		p.answererName = aref.Name
		plugin, err := o.reg.Answerer(aref.Name)
		if err != nil {
			probs.Add("answerer.name", strings.TrimPrefix(err.Error(), "lux: "))
			break
		}
		raw, err := lux.ConfigJSON(aref.Config)
		if err == nil && plugin.Harness {
			raw, err = harness.Inherit(o.harness, raw)
		}
		if err != nil {
			probs.Add("answerer.config", err.Error())
			break
		}
		var cfg lux.AnswererConfig
		if err := protect(func() (err error) { cfg, err = plugin.Parse(raw); return err }); err != nil {
			probs.Merge("answerer.config", err)
			break
		}
		if cfg == nil {
			probs.Addf("answerer", "answerer plugin %q returned no config", aref.Name)
			break
		}
		p.answerer = cfg
		if h, err := b.hashConfig(cfg); err != nil {
			probs.Add("answerer.config", "the parsed config does not encode as JSON: "+err.Error())
		} else {
			p.hashes.answererConfigHash = h
		}
	}

	// Assertions.
	var evaluators []evaluatorID
	p.checks, evaluators = o.assertionPlan(c, &probs)

	// Fixtures.
	if c.Fixtures != "" {
		p.fixturesDir = c.FixturesDir()
		if fi, err := os.Stat(p.fixturesDir); err != nil {
			probs.AddFix("fixtures", fmt.Sprintf("directory %s cannot be used: %v", p.fixturesDir, unwrapPathErr(err)),
				"a relative path is relative to the case file's directory")
		} else if !fi.IsDir() {
			probs.Addf("fixtures", "%s is not a directory", p.fixturesDir)
		} else if err := checkFixtures(p.fixturesDir); err != nil {
			// What staging would refuse at every run is refused now.
			probs.AddFix("fixtures", err.Error(), "replace it with the file or directory it stands for, or remove it")
		}
	}

	// Meta goes into case.json as it is.
	for _, k := range slices.Sorted(maps.Keys(c.Meta)) {
		if err := protect(func() error { _, err := json.Marshal(c.Meta[k]); return err }); err != nil {
			probs.AddFix("meta."+k, "does not encode as JSON: "+strings.TrimPrefix(err.Error(), "json: "),
				"keep to JSON values: strings, numbers, booleans, lists and objects")
		}
	}

	if probs.Len() > 0 {
		err := probs.Err(lux.ErrInvalidCase)
		if capErr != nil {
			err = &alsoError{err: err, also: lux.ErrMissingCapability}
		}
		return nil, fmt.Errorf("orchestrator: case %s: %w", caseLabel(c), err)
	}

	c = authored
	err := protect(func() (err error) {
		if p.hashes.caseHash, err = lux.HashValue(c); err == nil {
			assertions := c.Assertions
			if assertions == nil {
				assertions = []lux.AssertionSpec{}
			}
			if p.hashes.assertionsHash, err = lux.HashValue(assertions); err == nil {
				p.hashes.evaluatorConfigHash, err = evaluatorHash(evaluators, p.driverName, p.answererName)
			}
		}
		return err
	})
	if err != nil {
		probs.Add("", "does not encode as JSON: "+err.Error())
		return nil, fmt.Errorf("orchestrator: case %s: %w", caseLabel(c), probs.Err(lux.ErrInvalidCase))
	}
	return p, nil
}

// hashConfig is lux.HashValue of a plugin's parsed config, whose
// MarshalJSON is the plugin's code, with the subject root unbound.
func (b binder) hashConfig(cfg any) (h string, err error) {
	err = protect(func() error {
		raw, err := lux.CanonicalJSON(cfg)
		if err != nil {
			return fmt.Errorf("lux: hash: %w", err)
		}
		h = lux.HashBytes(b.unbind(raw))
		return nil
	})
	return h, err
}

// evaluatorID is an assertion plugin as the evaluator config hash sees it.
type evaluatorID struct {
	Type    string `json:"type"`
	Version string `json:"version"`
	// Harness is the project-wide harness model a model-graded
	// assertion inherits from, when it has one.
	Harness json.RawMessage `json:"harness,omitempty"`
}

// evaluatorHash identifies what grades a run: the lux version, the
// assertion plugins (type and version, in order), and the driver and
// answerer names.
func evaluatorHash(evaluators []evaluatorID, driver, answerer string) (string, error) {
	if evaluators == nil {
		evaluators = []evaluatorID{}
	}
	return lux.HashValue(map[string]any{
		"luxVersion": lux.Version, "assertions": evaluators, "driver": driver, "answerer": answerer,
	})
}

// assertionPlan resolves and parses every assertion of c, recording each
// problem with its path.
func (o *Orchestrator) assertionPlan(c *lux.Case, probs *lux.Problems) ([]check, []evaluatorID) {
	var checks []check
	var evaluators []evaluatorID
	for i, spec := range c.Assertions {
		at := fmt.Sprintf("assertions[%d]", i)
		if strings.TrimSpace(spec.Type) == "" {
			continue // reported by c.Validate
		}
		plugin, err := o.reg.Assertion(spec.Type)
		if err != nil {
			probs.Add(at+".type", strings.TrimPrefix(err.Error(), "lux: "))
			continue
		}
		id := evaluatorID{Type: plugin.Type, Version: plugin.Version}
		if plugin.Harness {
			id.Harness = o.harness
		}
		evaluators = append(evaluators, id)
		raw, err := lux.ConfigJSON(spec.Config)
		if err == nil && plugin.Harness {
			raw, err = harness.Inherit(o.harness, raw)
		}
		if err != nil {
			probs.Add(at, err.Error())
			continue
		}
		if raw == nil {
			raw = json.RawMessage("{}")
		}
		var chk lux.Check
		if err := protect(func() (err error) { chk, err = plugin.Parse(raw); return err }); err != nil {
			probs.Merge(at, err)
			continue
		}
		if chk == nil {
			probs.Addf(at, "assertion plugin %q returned no check", spec.Type)
			continue
		}
		checks = append(checks, check{spec: spec, id: spec.EffectiveID(i), plugin: plugin, checker: chk})
	}
	return checks, evaluators
}

func caseLabel(c *lux.Case) string {
	if c.Path != "" {
		return fmt.Sprintf("%q (%s)", c.CanonicalID(), c.Path)
	}
	return fmt.Sprintf("%q", c.CanonicalID())
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// alsoError is err that also matches another sentinel with errors.Is.
type alsoError struct {
	err, also error
}

func (e *alsoError) Error() string   { return e.err.Error() }
func (e *alsoError) Unwrap() []error { return []error{e.err, e.also} }

// mergeRefs resolves a case's plugin reference against a default: the
// case's own, else the default; when both name the same plugin their
// configs merge, objects key by key, the case's values winning.
func mergeRefs(def, own *lux.PluginRef) (*lux.PluginRef, error) {
	switch {
	case own == nil && def == nil:
		return nil, nil
	case own == nil:
		return def, nil
	case def == nil || def.Name != own.Name || def.Config == nil:
		return own, nil
	case own.Config == nil:
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
		if err := json.Unmarshal(raw, x.dst); err != nil {
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

// commandDir is the directory a relative command path in the case's driver
// config resolves against (see command.Path): the case file's
// directory when the case names its driver itself, else "" (the working
// directory), for a driver given by Options.DefaultDriver alone.
func commandDir(c *lux.Case) string {
	if c.Driver == nil || c.Path == "" {
		return ""
	}
	dir, err := filepath.Abs(filepath.Dir(c.Path))
	if err != nil {
		return ""
	}
	return dir
}
