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
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/safecall"
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
	caseDir      string   // what the driver's relative command paths resolve against
	varFiles     []string // files the driver's config names with a variable (see VarCaseDir)
	// driverChoice and answererChoice say what chose them (see Choose).
	driverChoice, answererChoice Choice
	hashes                       planHashes
}

// check is one assertion of the plan.
type check struct {
	spec    lux.AssertionSpec
	id      string
	plugin  *lux.AssertionPlugin
	checker lux.Check
}

type planHashes struct {
	gradingHashes
	driverConfigHash, answererConfigHash string
}

// gradingHashes identify what a case is graded on and by: the case, its
// assertions, and the evaluator config. A run and a regrading record
// them alike.
type gradingHashes struct {
	caseHash, assertionsHash, evaluatorConfigHash string
}

// hashGrading computes the grading hashes of the authored case c, graded
// by evaluators for a run of driver and answerer. A value of the case
// whose MarshalJSON panics is an error.
func hashGrading(c *lux.Case, evaluators []evaluatorID, driver, answerer string) (h gradingHashes, err error) {
	err = safecall.Protect(func() (err error) {
		if h.caseHash, err = digest.Value(c); err != nil {
			return err
		}
		assertions := c.Assertions
		if assertions == nil {
			assertions = []lux.AssertionSpec{}
		}
		if h.assertionsHash, err = digest.Value(assertions); err != nil {
			return err
		}
		h.evaluatorConfigHash, err = evaluatorHash(evaluators, driver, answerer)
		return err
	})
	return h, err
}

// Validate checks c against the registry without running anything: the
// case itself, its driver and answerer (or the defaults) and their
// configs, every assertion and its config, its fixtures directory, and
// that the driver declares every capability the case requires. It returns
// every problem at once, each with its field path, such as
// `driver.config.idleTimeout: must be positive` or `assertions[2].path:
// required`. The error wraps lux.ErrInvalidCase, and also
// ErrMissingCapability (a *MissingCapabilityError) when a required
// capability is missing.
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
	// The plugins see the case with the subject root bound; the hashes
	// below are of the authored case.
	authored := c
	b := newBinder(o.opts.SubjectRoot, o.optionName("SubjectRoot"))
	c = b.bindCase(&probs, authored)

	var capErr error
	switch dch, ok := o.choose(&probs, b, "driver", c.Driver, o.opts.DefaultDriver, o.opts.Driver); {
	case !ok:
	case dch.Ref == nil:
		probs.AddFix("driver", "required", fmt.Sprintf("name a driver in the case, or set %s (for every case) or %s (for cases that name none)",
			o.optionName("Driver"), o.optionName("DefaultDriver")))
	case strings.TrimSpace(dch.Ref.Name) == "":
		o.blankName(&probs, "driver", dch.Source) // the case's own is reported by c.Validate
	default:
		p.driverChoice = dch
		p.caseDir = commandDir(c, dch.Source)
		capErr = o.planDriver(&probs, b, p, dch.Ref, c.Requires)
	}
	if ach, ok := o.choose(&probs, b, "answerer", c.Answerer, o.opts.DefaultAnswerer, o.opts.Answerer); ok && ach.Ref != nil {
		if strings.TrimSpace(ach.Ref.Name) == "" {
			o.blankName(&probs, "answerer", ach.Source)
		} else {
			p.answererChoice = ach
			o.planAnswerer(&probs, b, p, ach.Ref)
		}
	}
	var evaluators []evaluatorID
	p.checks, evaluators = o.assertionPlan(c, &probs)
	p.fixturesDir = checkFixturesDir(&probs, c)
	checkMeta(&probs, c)

	if probs.Len() > 0 {
		err := probs.Err(lux.ErrInvalidCase)
		if capErr != nil {
			err = &alsoError{err: err, also: capErr}
		}
		return nil, fmt.Errorf("orchestrator: case %s: %w", caseLabel(c), err)
	}
	h, err := hashGrading(authored, evaluators, p.driverName, p.answererName)
	if err != nil {
		probs.Add("", "does not encode as JSON: "+err.Error())
		return nil, fmt.Errorf("orchestrator: case %s: %w", caseLabel(authored), probs.Err(lux.ErrInvalidCase))
	}
	p.hashes.gradingHashes = h
	return p, nil
}

// planDriver resolves the driver ref names: its config, runtime and config
// hash. The error is the driver's *MissingCapabilityError when it does
// not declare all of requires.
func (o *Orchestrator) planDriver(probs *lux.Problems, b binder, p *plan, ref *lux.PluginRef, requires []lux.Capability) error {
	p.driverName = ref.Name
	plugin, err := o.reg.Driver(ref.Name)
	if err != nil {
		addLookupProblem(probs, "driver.name", err)
		return nil
	}
	vars := o.driverVars(p.c, plugin.RunVariables)
	ref = vars.expandRef(probs, "driver.config", ref)
	b.vars = vars
	cfg, hash, ok := parsePlugin(probs, o.harness, b, "driver", ref, false, plugin.Parse)
	if !ok {
		return nil
	}
	p.driver, p.hashes.driverConfigHash, p.varFiles = cfg, hash, vars.files
	if err := safecall.Protect(func() error { p.runtime = cfg.Runtime(); return nil }); err != nil {
		probs.Addf("driver", "driver plugin %q failed to declare its runtime: %v", ref.Name, err)
		return nil
	}
	var missing *MissingCapabilityError
	if errors.As(CheckCapabilities(ref.Name, p.runtime, requires), &missing) {
		probs.AddFix("requires", missing.Problem(), "use a driver that declares them, or drop them from requires")
		return missing
	}
	return nil
}

// planAnswerer resolves the answerer ref names: its config and config hash.
func (o *Orchestrator) planAnswerer(probs *lux.Problems, b binder, p *plan, ref *lux.PluginRef) {
	p.answererName = ref.Name
	plugin, err := o.reg.Answerer(ref.Name)
	if err != nil {
		addLookupProblem(probs, "answerer.name", err)
		return
	}
	if cfg, hash, ok := parsePlugin(probs, o.harness, b, "answerer", ref, plugin.Harness, plugin.Parse); ok {
		p.answerer, p.hashes.answererConfigHash = cfg, hash
	}
}

// blankName reports a driver or answerer (kind) given by an option with
// no name; a case's own is reported by lux.Case.Validate.
func (o *Orchestrator) blankName(probs *lux.Problems, kind string, src Source) {
	field := "Driver"
	if kind == "answerer" {
		field = "Answerer"
	}
	if src == FromDefault || src == FromOverride {
		probs.AddFix(kind+".name", "required in "+o.sourceName(src, field), "name a registered plugin")
	}
}

// choose applies the precedence rule (see Choose) to the case's own
// reference to a driver or answerer (kind), the default def and the
// override over, with the subject root bound in the options' configs. ok
// is false when a problem was found.
func (o *Orchestrator) choose(probs *lux.Problems, b binder, kind string, own, def, over *lux.PluginRef) (ch Choice, ok bool) {
	ch, err := Choose(own, b.ref(probs, kind, def), b.ref(probs, kind, over))
	if err != nil {
		probs.Add(kind+".config", err.Error())
		return ch, false
	}
	return ch, true
}

// parsePlugin parses ref's config with parse, the Parse of the driver or
// answerer plugin (kind) ref names, and hashes the parsed config. A
// plugin that takes the project's harness model (inherits) gets it in its
// config. Every problem goes to probs under kind's field paths; ok is
// false when there is no config to use.
func parsePlugin[C any](probs *lux.Problems, harnessModel json.RawMessage, b binder, kind string, ref *lux.PluginRef, inherits bool,
	parse func(json.RawMessage) (C, error)) (cfg C, hash string, ok bool) {
	raw, err := configJSON(ref.Config, harnessModel, inherits)
	if err != nil {
		probs.Add(kind+".config", err.Error())
		return cfg, "", false
	}
	if err := safecall.Protect(func() (err error) { cfg, err = parse(raw); return err }); err != nil {
		probs.Merge(kind+".config", err)
		return cfg, "", false
	}
	if any(cfg) == nil {
		probs.Addf(kind, "%s plugin %q returned no config", kind, ref.Name)
		return cfg, "", false
	}
	hash, err = b.hashConfig(cfg)
	if err != nil {
		probs.Add(kind+".config", "the parsed config does not encode as JSON: "+err.Error())
	}
	return cfg, hash, true
}

// configJSON is a plugin's config as JSON, with the project's harness
// model merged in when the plugin inherits it.
func configJSON(v any, harnessModel json.RawMessage, inherits bool) (json.RawMessage, error) {
	raw, err := lux.ConfigJSON(v)
	if err == nil && inherits {
		raw, err = harness.Inherit(harnessModel, raw)
	}
	return raw, err
}

// addLookupProblem adds the registry's refusal of a plugin's name at path.
func addLookupProblem(probs *lux.Problems, path string, err error) {
	var unknown *lux.UnknownPluginError
	if errors.As(err, &unknown) {
		probs.Add(path, unknown.Problem())
		return
	}
	probs.Add(path, err.Error())
}

// checkFixturesDir returns the case's fixtures directory, if it names
// one, and adds what staging would refuse at every run to probs.
func checkFixturesDir(probs *lux.Problems, c *lux.Case) string {
	if c.Fixtures == "" {
		return ""
	}
	dir := c.FixturesDir()
	if fi, err := os.Stat(dir); err != nil {
		probs.AddFix("fixtures", fmt.Sprintf("directory %s cannot be used: %v", dir, unwrapPathErr(err)),
			"a relative path is relative to the case file's directory")
	} else if !fi.IsDir() {
		probs.Addf("fixtures", "%s is not a directory", dir)
	} else if err := checkFixtures(dir); err != nil {
		probs.AddFix("fixtures", err.Error(), "replace it with the file or directory it stands for, or remove it")
	}
	return dir
}

// checkMeta adds each value of the case's meta that does not encode as
// JSON to probs: meta goes into case.json as it is.
func checkMeta(probs *lux.Problems, c *lux.Case) {
	for _, k := range slices.Sorted(maps.Keys(c.Meta)) {
		if err := safecall.Protect(func() error { _, err := json.Marshal(c.Meta[k]); return err }); err != nil {
			probs.AddFix("meta."+k, "does not encode as JSON: "+err.Error(),
				"keep to JSON values: strings, numbers, booleans, lists and objects")
		}
	}
}

// hashConfig is digest.Value of a plugin's parsed config, whose
// MarshalJSON is the plugin's code, with the subject root unbound.
func (b binder) hashConfig(cfg any) (h string, err error) {
	err = safecall.Protect(func() error {
		raw, err := digest.CanonicalJSON(cfg)
		if err != nil {
			return fmt.Errorf("lux: hash: %w", err)
		}
		h = digest.Bytes(b.vars.unbind(b.unbind(raw)))
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
	return digest.Value(map[string]any{
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
			addLookupProblem(probs, at+".type", err)
			continue
		}
		id := evaluatorID{Type: plugin.Type, Version: plugin.Version}
		if plugin.Harness {
			id.Harness = o.harness
		}
		evaluators = append(evaluators, id)
		raw, err := configJSON(spec.Config, o.harness, plugin.Harness)
		if err != nil {
			probs.Add(at, err.Error())
			continue
		}
		if raw == nil {
			raw = json.RawMessage("{}")
		}
		var chk lux.Check
		if err := safecall.Protect(func() (err error) { chk, err = plugin.Parse(raw); return err }); err != nil {
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

// commandDir is the directory a relative command path in the driver's
// config resolves against (see command.Path): the case file's directory
// when the config is the case's own (alone, or merged over the default's),
// else "" (the working directory): a default or an override is given by
// the harness, not by the case file.
func commandDir(c *lux.Case, src Source) string {
	if c.Path == "" || (src != FromCase && src != FromCaseOverDefault) {
		return ""
	}
	dir, err := filepath.Abs(filepath.Dir(c.Path))
	if err != nil {
		return ""
	}
	return dir
}
