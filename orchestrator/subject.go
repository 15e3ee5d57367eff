package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luxeval/lux"
)

// SubjectRootToken stands for Options.SubjectRoot in a case: in any string
// of its driver or answerer config (or the defaults'), its fixtures path
// and its assertions' configs. It lets one case run against the files an
// experiment varies (a skill directory, a plugin, an instructions file)
// and, with a SubjectRoot of your own, outside an experiment too.
//
// The token is replaced before the case is validated; the case's hashes,
// and case.json, keep the authored form, so runs against two copies of a
// subject measure the same case.
const SubjectRootToken = "{{lux.subjectRoot}}"

var tokenBytes = []byte(SubjectRootToken)

// binder replaces SubjectRootToken with a directory.
type binder struct {
	root     string // absolute; "" when no root is configured
	rootName string // how the caller spells the option that sets it
	// vars, for a driver's config, are the variables expanded in it (see
	// VarCaseDir), unbound for its hash as the root is.
	vars *driverVars
}

func newBinder(root, rootName string) binder {
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	return binder{root: root, rootName: rootName}
}

// noRoot is the problem of a token with no root to bind it to.
func (b binder) noRoot(probs *lux.Problems, path string) {
	probs.AddFix(path, "uses "+SubjectRootToken+" but no subject root is configured",
		"set "+b.rootName+", or run the case in an experiment")
}

// str binds s.
func (b binder) str(probs *lux.Problems, path, s string) string {
	if !strings.Contains(s, SubjectRootToken) {
		return s
	}
	if b.root == "" {
		b.noRoot(probs, path)
		return s
	}
	return strings.ReplaceAll(s, SubjectRootToken, b.root)
}

// value binds every string of v, a config in any of the forms a PluginRef
// or an assertion accepts, and returns it as raw JSON when anything was
// bound (else v unchanged).
func (b binder) value(probs *lux.Problems, path string, v any) any {
	raw, err := lux.ConfigJSON(v)
	if err != nil || !bytes.Contains(raw, tokenBytes) {
		return v // an encoding problem is reported where the config is parsed
	}
	if b.root == "" {
		b.noRoot(probs, path)
		return v
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var generic any
	if err := d.Decode(&generic); err != nil {
		return v
	}
	out, err := json.Marshal(b.walk(generic))
	if err != nil {
		return v
	}
	return json.RawMessage(out)
}

func (b binder) walk(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, SubjectRootToken, b.root)
	case []any:
		for i := range x {
			x[i] = b.walk(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = b.walk(e)
		}
	}
	return v
}

// ref binds the config of r.
func (b binder) ref(probs *lux.Problems, path string, r *lux.PluginRef) *lux.PluginRef {
	if r == nil || r.Config == nil {
		return r
	}
	cfg := b.value(probs, path+".config", r.Config)
	return &lux.PluginRef{Name: r.Name, Config: cfg}
}

// bindCase returns c with the token bound in its driver config, fixtures
// path and assertion configs (c itself when it has none).
func (b binder) bindCase(probs *lux.Problems, c *lux.Case) *lux.Case {
	out := *c
	out.Driver = b.ref(probs, "driver", c.Driver)
	out.Answerer = b.ref(probs, "answerer", c.Answerer)
	out.Fixtures = b.str(probs, "fixtures", c.Fixtures)
	out.Assertions = make([]lux.AssertionSpec, len(c.Assertions))
	for i, a := range c.Assertions {
		if a.Config != nil {
			bound := b.value(probs, fmt.Sprintf("assertions[%d]", i), a.Config)
			if raw, ok := bound.(json.RawMessage); ok {
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err == nil {
					a.Config = m
				}
			}
		}
		out.Assertions[i] = a
	}
	return &out
}

// unbind returns the JSON of a parsed config with the bound root turned
// back into the token, so that its hash is that of the authored config.
func (b binder) unbind(raw []byte) []byte {
	if b.root == "" {
		return raw
	}
	quoted, err := json.Marshal(b.root)
	if err != nil {
		return raw
	}
	return bytes.ReplaceAll(raw, quoted[1:len(quoted)-1], tokenBytes)
}

// BindSubjectRoot returns v, a plugin config in any form a PluginRef
// accepts, with every SubjectRootToken replaced by root (made absolute):
// what the orchestrator gives the plugins. Without the token v comes back
// unchanged; with the token and an empty root it is an error.
func BindSubjectRoot(v any, root string) (any, error) {
	var probs lux.Problems
	out := newBinder(root, "the subject root").value(&probs, "", v)
	if err := probs.Err(lux.ErrInvalidConfig); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	return out, nil
}
