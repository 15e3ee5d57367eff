package compare

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/record"
)

// Field names one part of a run's comparison identity (see
// record.IdentityHash): two runs measure the same thing only when every
// field matches.
type Field string

// The identity fields, in the order comparisons report them.
const (
	FieldCaseID              Field = "caseId"              // the canonical case id
	FieldCaseHash            Field = "caseHash"            // the case as authored: prompt, persona, fixtures path, assertions, ...
	FieldAssertionsHash      Field = "assertionsHash"      // the assertions as authored
	FieldFixturesHash        Field = "fixturesHash"        // the staged fixture tree
	FieldDriverConfigHash    Field = "driverConfigHash"    // the validated driver config
	FieldAnswererConfigHash  Field = "answererConfigHash"  // the validated answerer config
	FieldEvaluatorConfigHash Field = "evaluatorConfigHash" // the evaluator: harness, plugins, assertion configs
	FieldRuntime             Field = "runtime"             // driver, commands (name, content hash or version; not where found), capabilities, model
	FieldEnvironment         Field = "environment"         // the user's declaration of where the agent ran
	FieldSource              Field = "source"              // case path and git commit (and working-tree hash when dirty)
	FieldHost                Field = "host"                // OS, architecture, Go version of the harness
	FieldDriver              Field = "driver"              // the agent as it reported itself when ready (per-session detail left out: ids, pid, cwd)
	FieldAnswerer            Field = "answerer"            // the answerer's name
	FieldExperimentID        Field = "experimentId"        // the experiment the run belongs to
	// FieldIdentityHash reports identity hashes that differ (or are
	// missing) where no field above can say why: a run without run.json,
	// or a record written by a newer version.
	FieldIdentityHash Field = "identityHash"
)

// identityFields are the fields Options.Vary accepts (FieldCaseID is
// refused there with its own message).
var identityFields = []Field{
	FieldCaseID, FieldCaseHash, FieldAssertionsHash, FieldFixturesHash, FieldDriverConfigHash,
	FieldAnswererConfigHash, FieldEvaluatorConfigHash, FieldRuntime, FieldEnvironment, FieldSource,
	FieldHost, FieldDriver, FieldAnswerer, FieldExperimentID, FieldIdentityHash,
}

func fieldList() string {
	names := make([]string, 0, len(identityFields))
	for _, f := range identityFields[1:] {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Mismatch is one identity field that differs between two runs, with both
// values. Structured values come with a readable diff.
type Mismatch struct {
	Field Field `json:"field"`
	A     any   `json:"a"`
	B     any   `json:"b"`
	// Changes are the values that differ inside the field, by path (for
	// caseHash and assertionsHash, inside the authored cases when both
	// case.json files are at hand), at most 20; MoreChanges counts the rest.
	Changes     []FieldChange `json:"changes,omitempty"`
	MoreChanges int           `json:"moreChanges,omitempty"`
	// Flag is the command-line flag that accepts the difference
	// ("-vary runtime"; Options.Vary in Go); empty for caseId.
	Flag string `json:"flag,omitempty"`
	// Diff is a go-cmp diff of the same values, lines prefixed "-" for A
	// and "+" for B, for tools; the text shows Changes instead.
	Diff string `json:"diff,omitempty"`
	// Note explains a mismatch the values alone do not show.
	Note string `json:"note,omitempty"`
	// Varied is true when Options.Vary lists the field: the difference is
	// intended and does not make the runs incomparable.
	Varied bool `json:"varied,omitempty"`
	// Within is "a" or "b" when both values come from runs of one side (the
	// repetitions of a case disagree), "" when A and B are the two sides.
	Within string `json:"within,omitempty"`
}

// identityMismatches returns the identity fields that differ between the
// runs ma and mb (case records optional, for readable case diffs). It
// trusts record.IdentityHash: equal hashes mean no mismatch at all. The
// canonical case id is checked by the callers.
func identityMismatches(ma, mb *record.Metadata, ca, cb *record.CaseRecord) []Mismatch {
	ha, hb := record.IdentityHash(ma), record.IdentityHash(mb)
	if ha == hb {
		return nil
	}
	pa, pb := ma.Provenance, mb.Provenance
	var out []Mismatch
	// hash reports a hash field, explained by the values x and y it is the
	// hash of when they are known (non-nil).
	hash := func(f Field, a, b string, x, y any) {
		if a == b {
			return
		}
		m := Mismatch{Field: f, A: a, B: b, Flag: varyFlag(f)}
		if x != nil && y != nil {
			m.Changes, m.MoreChanges = fieldChanges(x, y)
			m.Diff = diff(x, y)
		}
		out = append(out, m)
	}
	value := func(f Field, a, b any) {
		if !sameJSON(a, b) {
			m := Mismatch{Field: f, A: a, B: b, Diff: diff(a, b), Flag: varyFlag(f)}
			m.Changes, m.MoreChanges = fieldChanges(a, b)
			out = append(out, m)
		}
	}
	caseA, caseB := authoredOf(ca), authoredOf(cb)
	hash(FieldCaseHash, pa.CaseHash, pb.CaseHash, caseA, caseB)
	hash(FieldAssertionsHash, pa.AssertionsHash, pb.AssertionsHash, assertionsOf(ca), assertionsOf(cb))
	hash(FieldFixturesHash, pa.FixturesHash, pb.FixturesHash, fixturesOf(ca, cb), fixturesOf(cb, ca))
	hash(FieldDriverConfigHash, pa.DriverConfigHash, pb.DriverConfigHash, nil, nil)
	hash(FieldAnswererConfigHash, pa.AnswererConfigHash, pb.AnswererConfigHash, nil, nil)
	hash(FieldEvaluatorConfigHash, pa.EvaluatorConfigHash, pb.EvaluatorConfigHash, nil, nil)
	value(FieldRuntime, pa.Runtime.Identity(), pb.Runtime.Identity())
	value(FieldEnvironment, rawValue(pa.Environment), rawValue(pb.Environment))
	if unproven(pa.Source) || unproven(pb.Source) {
		m := Mismatch{
			Field: FieldSource, A: pa.Source, B: pb.Source, Diff: diff(pa.Source, pb.Source), Flag: varyFlag(FieldSource),
			Note: "the repository was dirty and no working-tree snapshot was recorded, so what ran cannot be proven equal",
		}
		m.Changes, m.MoreChanges = fieldChanges(pa.Source, pb.Source)
		out = append(out, m)
	} else {
		value(FieldSource, pa.Source, pb.Source)
	}
	value(FieldHost, pa.Host, pb.Host)
	value(FieldDriver, record.IdentityDriver(ma.Driver), record.IdentityDriver(mb.Driver))
	if ma.Answerer.Name != mb.Answerer.Name {
		out = append(out, Mismatch{Field: FieldAnswerer, A: ma.Answerer.Name, B: mb.Answerer.Name, Flag: varyFlag(FieldAnswerer)})
	}
	hash(FieldExperimentID, pa.ExperimentID, pb.ExperimentID, nil, nil)
	if len(out) == 0 {
		out = append(out, Mismatch{Field: FieldIdentityHash, A: ha, B: hb, Flag: varyFlag(FieldIdentityHash),
			Note: "the identity hashes differ in a field this version does not name"})
	}
	return out
}

// unproven reports a dirty source without a working-tree hash.
func unproven(s *record.Source) bool {
	return s != nil && s.Git != nil && s.Git.Dirty && s.Git.WorkingTreeHash == ""
}

// rawValue decodes a raw JSON declaration for display and diffing; an
// empty one is nil and an invalid one stays raw text.
func rawValue(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

// sameJSON reports whether a and b have equal canonical JSON, the equality
// record.IdentityHash uses.
func sameJSON(a, b any) bool {
	ja, errA := digest.CanonicalJSON(a)
	jb, errB := digest.CanonicalJSON(b)
	if errA != nil || errB != nil {
		return cmp.Equal(a, b)
	}
	return bytes.Equal(ja, jb)
}

// diff is a go-cmp diff (-a +b) of two values, normalised for stable
// output (go-cmp varies its indentation characters on purpose).
func diff(a, b any) string {
	d := cmp.Diff(a, b)
	d = strings.ReplaceAll(d, "\u00a0", " ")
	d = strings.ReplaceAll(d, "\t", "  ")
	return strings.TrimRight(d, "\n")
}

// authored is a case as its hash sees it: the file it came from is left out.
func authored(c *record.CaseRecord) lux.Case {
	cc := c.Case
	cc.Path = ""
	return cc
}

// authoredOf is the authored case of a record, nil without one.
func authoredOf(c *record.CaseRecord) any {
	if c == nil {
		return nil
	}
	return authored(c)
}

// assertionsOf is the authored assertions of a record, nil without one.
func assertionsOf(c *record.CaseRecord) any {
	if c == nil {
		return nil
	}
	return map[string]any{"assertions": c.Assertions}
}

// fixturesOf is the fixtures path of c when both records name different
// ones; nil otherwise (the tree's content changed, which only its hash
// shows).
func fixturesOf(c, other *record.CaseRecord) any {
	if c == nil || other == nil || c.Fixtures == other.Fixtures {
		return nil
	}
	return map[string]any{"fixtures": c.Fixtures}
}

// markVaried sets Varied on the mismatches whose field s.vary lists and
// returns how many are not varied.
func markVaried(ms []Mismatch, vary map[Field]bool) (unvaried int) {
	for i := range ms {
		if vary[ms[i].Field] {
			ms[i].Varied = true
		} else {
			unvaried++
		}
	}
	return unvaried
}
