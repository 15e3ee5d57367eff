package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/naming"
)

// The variables a driver's config may use in its command, args, extraArgs
// and env values, written ${NAME} ($${ is a literal ${):
//
//   - ${CASE_DIR}: the directory of the case file, absolute. A case with
//     no file (an inline case) has none.
//   - ${PROJECT_DIR}: the project's directory (Options.ProjectDir; the
//     command line sets it to the directory of lux.json).
//
// "env": {"SKILL_FILE": "${CASE_DIR}/../skill/SKILL.md"} gives the agent
// the absolute path of a file beside the cases, wherever the agent runs.
// A value that starts with a variable names a path, which must exist; a
// path given this way that is a file is identified by its content in the
// run's provenance (runtime.scripts), as a command is, so editing the file
// makes later runs measure something else. The config's hash keeps the
// variables as written, so a project checked out elsewhere runs the same
// configuration. The runs root is deliberately not a variable: the agent
// is never told where the record is. The variables a driver expands itself
// at each run (lux.DriverPlugin.RunVariables: mcp-probe's ${ARTIFACTS_DIR}
// and ${RUN_DIR}) are left for it; any other ${NAME} is a problem of the
// case, named with its field path and the known variables — except in
// args and extraArgs, which a shell may read (sh -c '... ${HOME} ...'):
// there only a near miss of a known name (${CASEDIR}) is refused, and any
// other ${NAME} is left as written.
const (
	VarCaseDir    = "CASE_DIR"
	VarProjectDir = "PROJECT_DIR"
)

// varFields are the fields of a driver's config whose strings are expanded.
var varFields = []string{"command", "args", "extraArgs", "env"}

// driverVars are the values of the variables for one case, and why a
// variable has none.
type driverVars struct {
	values  map[string]string
	missing map[string]string
	// used maps each value substituted to its variable, for the hash.
	used map[string]string
	// files are the existing files that expanded values name.
	files []string
	// runVars are the driver's own (lux.DriverPlugin.RunVariables), left
	// as written.
	runVars []string
}

func (o *Orchestrator) driverVars(c *lux.Case, runVars []string) *driverVars {
	v := &driverVars{values: map[string]string{}, missing: map[string]string{}, used: map[string]string{}, runVars: runVars}
	if c.Path == "" {
		v.missing[VarCaseDir] = "the case has no file (an inline case)"
	} else if dir, err := filepath.Abs(filepath.Dir(c.Path)); err == nil {
		v.values[VarCaseDir] = dir
	} else {
		v.missing[VarCaseDir] = err.Error()
	}
	if d := o.opts.ProjectDir; d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		v.values[VarProjectDir] = d
	} else {
		v.missing[VarProjectDir] = "no project directory is set (" + o.optionName("ProjectDir") + ")"
	}
	return v
}

// guess is the known variable name most likely meant, or "".
func (v *driverVars) guess(name string) string {
	known := []string{VarCaseDir, VarProjectDir}
	return naming.Closest(name, append(known, v.runVars...))
}

// known lists the variables, for messages.
func (v *driverVars) known() string {
	s := "${" + VarCaseDir + "}, ${" + VarProjectDir + "}"
	for _, r := range v.runVars {
		s += ", ${" + r + "}"
	}
	return s
}

// expandRef returns ref with the variables of its config's command, args,
// extraArgs and env expanded (ref itself when it uses none). Problems go to
// probs under path (driver.config...).
func (v *driverVars) expandRef(probs *lux.Problems, path string, ref *lux.PluginRef) *lux.PluginRef {
	if ref == nil || ref.Config == nil {
		return ref
	}
	raw, err := lux.ConfigJSON(ref.Config)
	if err != nil || !bytes.Contains(raw, []byte("${")) {
		return ref // an encoding problem is reported where the config is parsed
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var obj map[string]any
	if d.Decode(&obj) != nil || obj == nil {
		return ref
	}
	changed := false
	for _, field := range varFields {
		at := naming.Join(path, field)
		// A shell may read the arguments (sh -c '... ${HOME} ...'): there
		// a ${NAME} that is no near miss of a variable is the shell's.
		lenient := field == "args" || field == "extraArgs"
		switch x := obj[field].(type) {
		case string:
			if s, ok := v.expand(probs, at, x, false, false); ok {
				obj[field], changed = s, true
			}
		case []any:
			for i, e := range x {
				if s, isStr := e.(string); isStr {
					if s, ok := v.expand(probs, fmt.Sprintf("%s[%d]", at, i), s, true, lenient); ok {
						x[i], changed = s, true
					}
				}
			}
		case map[string]any:
			for k, e := range x {
				if s, isStr := e.(string); isStr {
					if s, ok := v.expand(probs, naming.Join(at, k), s, true, false); ok {
						x[k], changed = s, true
					}
				}
			}
		}
	}
	if !changed {
		return ref
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return ref
	}
	return &lux.PluginRef{Name: ref.Name, Config: json.RawMessage(out)}
}

// expand replaces the variables of s. ok is false when s has none (or a
// problem was found). A value that starts with a variable names a path: it
// must exist, and when it is a file (or, with identify, a file follows
// the first "="), it joins v.files. An unknown ${NAME} is a problem, or
// when lenient, one only when it is a near miss of a known variable
// (${CASEDIR}), else left as written.
func (v *driverVars) expand(probs *lux.Problems, path, s string, identify, lenient bool) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, false
	}
	var b strings.Builder
	vars, bad, path0, escaped := 0, false, false, false
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 3
			escaped = true
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				probs.AddFix(path, "has ${ without a closing }", "write ${NAME} ("+v.known()+"), or $${ for a literal ${")
				return s, false
			}
			name := s[i+2 : i+2+end]
			val, ok := v.values[name]
			switch why, isKnown := v.missing[name]; {
			case slices.Contains(v.runVars, name):
				b.WriteString(s[i : i+2+end+1])
			case ok:
				b.WriteString(val)
				if prev, seen := v.used[val]; !seen || name < prev {
					v.used[val] = name // one name per value, whatever the order of env's keys
				}
				vars++
				path0 = path0 || i == 0
			case isKnown:
				probs.AddFix(path, fmt.Sprintf("uses ${%s}, but %s", name, why), "give the path another way, or run the case from its file")
				bad = true
			case lenient && v.guess(name) == "":
				b.WriteString(s[i : i+2+end+1])
			default:
				fix := "known: " + v.known() + "; write $${ for a literal ${"
				if g := v.guess(name); g != "" {
					fix = "did you mean ${" + g + "}? " + fix
				}
				probs.AddFix(path, fmt.Sprintf("unknown variable ${%s}", name), fix)
				bad = true
			}
			i += 2 + end + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	if bad {
		return s, false
	}
	out := b.String()
	if vars == 0 {
		return out, escaped
	}
	if identify {
		v.noteFiles(probs, path, out, path0)
	}
	return out, true
}

// noteFiles records the files the expanded value out names, and adds a
// problem when a value that starts with a variable (isPath) names nothing.
func (v *driverVars) noteFiles(probs *lux.Problems, path, out string, isPath bool) {
	cands := []string{out}
	if _, after, ok := strings.Cut(out, "="); ok {
		cands = append(cands, after)
	}
	for _, c := range cands {
		if !filepath.IsAbs(c) {
			continue
		}
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			if c = filepath.Clean(c); !slices.Contains(v.files, c) {
				v.files = append(v.files, c)
			}
		}
	}
	if isPath {
		if _, err := os.Stat(out); err != nil {
			probs.AddFix(path, fmt.Sprintf("names %s, which cannot be used: %v", out, unwrapPathErr(err)),
				"${"+VarCaseDir+"} is the case file's directory, ${"+VarProjectDir+"} the project's")
		}
	}
}

// unbind returns raw, a parsed config's JSON, with each value substituted
// turned back into its variable, longest first, so that the config's hash
// is that of the config as written.
func (v *driverVars) unbind(raw []byte) []byte {
	if v == nil || len(v.used) == 0 {
		return raw
	}
	vals := make([]string, 0, len(v.used))
	for val := range v.used {
		vals = append(vals, val)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, val := range vals {
		quoted, err := json.Marshal(val)
		if err != nil || len(val) < 2 { // a case at the filesystem's root: "/" is in every path
			continue
		}
		raw = bytes.ReplaceAll(raw, quoted[1:len(quoted)-1], []byte("${"+v.used[val]+"}"))
	}
	return raw
}
