package docs

import (
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/luxeval/lux"

// TestArchitectureTableIsTheImportGraph checks the package table of
// architecture.md against the code: every public package of the module
// has a row, and each imports only packages of its own row or the rows
// above it. A new package, or a new import that goes down the table,
// fails here until the table says so.
func TestArchitectureTableIsTheImportGraph(t *testing.T) {
	rank := tableRanks(t, read(t, "architecture.md"))
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list packages with")
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{} // public package → its public imports in the module
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := short(fields[0])
		if !public(pkg) {
			continue
		}
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if dep := short(imp); strings.HasPrefix(imp, module) && public(dep) {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
	}
	if len(imports) < 10 {
		t.Fatalf("go list gave %d public packages; expected the whole module:\n%s", len(imports), out)
	}
	for pkg, deps := range imports {
		r, ok := rankOf(rank, pkg)
		if !ok {
			t.Errorf("package %s has no row in architecture.md's package table: add one where its imports allow", pkg)
			continue
		}
		for _, dep := range deps {
			if d, ok := rankOf(rank, dep); ok && d > r {
				t.Errorf("%s imports %s, which architecture.md's table puts below it: remove the import, or move the rows and say why", pkg, dep)
			}
		}
	}
	for pkg, want := range edgeList(t, read(t, "architecture.md")) {
		got, ok := imports[pkg]
		if !ok {
			t.Errorf("architecture.md's import edges list %s, which is not a package of the module", pkg)
			continue
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("architecture.md's import edges of %s are not its imports (-listed +actual):\n%s", pkg, diff)
		}
	}
}

// edgeList reads the code block after "The import edges": one line per
// package, its name then its imports, or "(none)".
func edgeList(t *testing.T, text string) map[string][]string {
	t.Helper()
	_, after, ok := strings.Cut(text, "The import edges")
	if !ok {
		t.Fatal(`architecture.md has no "The import edges" paragraph`)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	edges := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		deps := []string{}
		if len(f) > 1 && f[1] != "(none)" {
			deps = append(deps, f[1:]...)
		}
		sort.Strings(deps)
		edges[f[0]] = deps
	}
	if len(edges) < 5 {
		t.Fatalf("architecture.md: read %d lines of import edges; the block changed shape", len(edges))
	}
	return edges
}

// tableRanks reads the first column of the package table ("| package |
// what it is |"): each backquoted name gets its row's number.
func tableRanks(t *testing.T, text string) map[string]int {
	t.Helper()
	name := regexp.MustCompile("`([^`]+)`")
	rank := map[string]int{}
	in, row := false, 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "| package |"):
			in = true
		case in && strings.HasPrefix(line, "| ---"):
		case in && strings.HasPrefix(line, "| "):
			first := strings.SplitN(line, "|", 3)[1]
			for _, m := range name.FindAllStringSubmatch(first, -1) {
				rank[m[1]] = row
			}
			row++
		case in:
			in = false
		}
	}
	if len(rank) < 10 {
		t.Fatalf("architecture.md: found %d packages in the package table (| package | what it is |); the table moved or changed shape", len(rank))
	}
	return rank
}

// rankOf finds a package's row: its own name, or a "dir/*" row for it.
func rankOf(rank map[string]int, pkg string) (int, bool) {
	if r, ok := rank[pkg]; ok {
		return r, true
	}
	r, ok := rank[path.Dir(pkg)+"/*"]
	return r, ok
}

// short is a package's path inside the module; the root is "lux".
func short(importPath string) string {
	if importPath == module {
		return "lux"
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// public reports whether a package is one of the module's public API
// packages, the ones the table lists (not internal, examples or docs).
func public(pkg string) bool {
	for _, p := range []string{"internal", "examples", "docs"} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") || strings.Contains(pkg, "/"+p+"/") || strings.HasSuffix(pkg, "/"+p) {
			return false
		}
	}
	return true
}
