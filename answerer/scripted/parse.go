package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/digest"
	"github.com/luxeval/lux/internal/jsonerr"
	"github.com/luxeval/lux/internal/naming"
	"github.com/luxeval/lux/internal/re2"
)

// maxFileBytes bounds a rules file.
const maxFileBytes = 4 << 20

// rawConfig is Config with the rules kept raw, so each is decoded with its
// own path.
type rawConfig struct {
	Rules []json.RawMessage `json:"rules,omitempty"`
	File  string            `json:"file,omitempty"`
}

// rawFile is the object form of a rules file.
type rawFile struct {
	Rules []json.RawMessage `json:"rules"`
}

func parse(raw json.RawMessage) (*config, error) {
	var rc rawConfig
	c := &config{}
	validate := func() error {
		var p lux.Problems
		c.file = rc.File
		defaults := map[lux.InterruptKind]string{}
		c.rules = decodeRules(&p, "", "rules", rc.Rules, defaults)
		if rc.File != "" {
			data, problem := readRulesFile(rc.File)
			switch {
			case problem != "":
				p.AddFix("file", problem, "give a JSON file of rules; a relative path is relative to the working directory")
			default:
				c.fileSHA256 = digest.Bytes(data)
				c.rules = append(c.rules, decodeFile(&p, rc.File, data, defaults)...)
			}
		}
		if p.Len() == 0 && len(c.rules) == 0 {
			p.AddFix("rules", "required", "give at least one rule, inline or in a file")
		}
		return p.Err(nil)
	}
	if err := lux.DecodeConfig(raw, &rc, validate); err != nil {
		return nil, err
	}
	return c, nil
}

// readRulesFile reads a rules file of at most maxFileBytes. It refuses
// anything but a regular file (a named pipe could block forever, a device
// never end) and stops reading past the limit. problem says what is wrong.
func readRulesFile(name string) (data []byte, problem string) {
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %q: %v", name, unwrapPathError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Sprintf("cannot read %q: %v", name, unwrapPathError(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Sprintf("%q is not a regular file", name)
	}
	if info.Size() > maxFileBytes {
		return nil, fmt.Sprintf("%q is %d bytes, over the limit of %d", name, info.Size(), maxFileBytes)
	}
	data, err = io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Sprintf("cannot read %q: %v", name, unwrapPathError(err))
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Sprintf("%q grew past the limit of %d bytes while being read", name, maxFileBytes)
	}
	return data, ""
}

// decodeFile reads the rules of a file: a list, or {"rules": [...]}.
func decodeFile(p *lux.Problems, name string, data []byte, defaults map[lux.InterruptKind]string) []*rule {
	prefix := fmt.Sprintf("file(%s)", name)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(data, &list); err != nil {
			p.Add(prefix, jsonerr.NotValid(data, err))
			return nil
		}
		return decodeRules(p, "", prefix, list, defaults)
	}
	var rf rawFile
	var rules []*rule
	err := lux.DecodeConfig(trimmed, &rf, func() error {
		var fp lux.Problems
		if rf.Rules == nil {
			fp.AddFix("", "has no rules", `write a list of rules, or {"rules": [...]}`)
		}
		rules = decodeRules(&fp, prefix, "rules", rf.Rules, defaults)
		return fp.Err(nil)
	})
	if err != nil {
		p.Merge(prefix, err)
		return nil
	}
	return rules
}

// decodeRules decodes and validates each rule at path[i], recording its
// problems into p, whose paths are relative to where. defaults maps a kind
// to the path of its default rule, across inline and file rules.
func decodeRules(p *lux.Problems, where, path string, raws []json.RawMessage, defaults map[lux.InterruptKind]string) []*rule {
	var out []*rule
	for i, raw := range raws {
		at := fmt.Sprintf("%s[%d]", path, i)
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			p.Add(at, "must be a rule object, got null")
			continue
		}
		var r Rule
		var vr *rule
		err := lux.DecodeConfig(raw, &r, func() error {
			var rp lux.Problems
			vr = validateRule(&rp, naming.Join(where, at), r, defaults)
			return rp.Err(nil)
		})
		p.Merge(at, err)
		if err == nil && vr != nil {
			out = append(out, vr)
		}
	}
	return out
}

// validateRule checks one rule: its body fits its kind, its regular
// expression compiles, a default rule is plain and the only one of its kind.
// Its problems' paths are relative to the rule; at is where the rule is,
// which a second default rule names.
func validateRule(p *lux.Problems, at string, r Rule, defaults map[lux.InterruptKind]string) *rule {
	before := p.Len()
	var bodies []string
	var bodyKind lux.InterruptKind
	if r.Answer != "" {
		bodies, bodyKind = append(bodies, "answer"), lux.Ask
	}
	if r.Approve != nil {
		bodies, bodyKind = append(bodies, "approve"), lux.Approve
	}
	if r.Payload != nil {
		bodies, bodyKind = append(bodies, "payload"), lux.Custom
	}
	switch r.Kind {
	case "", lux.Ask, lux.Approve, lux.Custom:
	default:
		p.AddFix("kind", fmt.Sprintf("must be %q, %q or %q, got %q", lux.Ask, lux.Approve, lux.Custom, r.Kind),
			"or leave it out: the answer decides the kind")
	}
	switch {
	case len(bodies) == 0:
		p.AddFix("", "has no answer", bodyFix(r.Kind))
	case len(bodies) > 1:
		p.AddFix("", fmt.Sprintf("has both %q and %q; a rule gives one answer", bodies[0], bodies[1]), bodyFix(r.Kind))
	case r.Kind == "":
		r.Kind = bodyKind
	case r.Kind != bodyKind && (r.Kind == lux.Ask || r.Kind == lux.Approve || r.Kind == lux.Custom):
		p.AddFix(bodies[0], fmt.Sprintf("answers %s interrupts, but the rule is for %s ones", bodyKind, r.Kind), bodyFix(r.Kind))
	}
	if r.Reason != "" && r.Approve == nil {
		p.AddFix("reason", "only an approve rule has a reason", `give "approve": false or true with it, or remove it`)
	}
	approvalMatchers := r.Action != "" || r.Tool != "" || r.Command != "" || r.Path != ""
	if approvalMatchers && r.Kind != "" && r.Kind != lux.Approve {
		p.AddFix("", "action, tool, command and path match approvals only", `give "approve": true or false, or match the text with "match"`)
	}
	switch r.Action {
	case "", lux.ActionCommand, lux.ActionEdit, lux.ActionPermissions, lux.ActionTool:
	default:
		p.AddFix("action", fmt.Sprintf("unknown action %q", r.Action),
			fmt.Sprintf("use %q, %q, %q or %q", lux.ActionCommand, lux.ActionEdit, lux.ActionPermissions, lux.ActionTool))
	}
	if r.Default {
		if r.Match != "" || r.ID != "" || approvalMatchers {
			p.AddFix("default", "a default rule answers every interrupt of its kind", `remove "match", "id" and the approval matchers, or "default"`)
		}
		if r.Kind != "" && p.Len() == before {
			if first, dup := defaults[r.Kind]; dup {
				p.AddFix("default", fmt.Sprintf("second default rule for %s interrupts (%s is one)", r.Kind, first), "keep one")
			} else {
				defaults[r.Kind] = at
			}
		}
	}
	compile := func(field, expr string) *regexp.Regexp {
		if expr == "" {
			return nil
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			p.AddFix(field, re2.Problem(err),
				"use Go RE2 syntax, without backreferences or lookaround; start with (?i) to ignore case")
		}
		return re
	}
	vr := &rule{Rule: r, re: compile("match", r.Match), command: compile("command", r.Command), path: compile("path", r.Path)}
	if p.Len() > before {
		return nil
	}
	return vr
}

func bodyFix(kind lux.InterruptKind) string {
	switch kind {
	case lux.Ask:
		return `an ask rule gives "answer": "text"`
	case lux.Approve:
		return `an approve rule gives "approve": true or false, and an optional "reason"`
	case lux.Custom:
		return `a custom rule gives "payload": any JSON value`
	}
	return `give "answer" for ask, "approve" for approve, or "payload" for custom`
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
