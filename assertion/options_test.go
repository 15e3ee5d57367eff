package assertion_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// An option given to an assertion without that field does not compile.
// The test type-checks small programs against the package as the compiler
// built it, so it fails if an option type ever accepts more than its
// assertions' fields.
func TestOptionsOfOtherAssertionsDoNotCompile(t *testing.T) {
	check := typeChecker(t)
	valid := []string{
		`a.FileRegexCount("log.txt", "error", a.ID("errors"), a.Weight(2), a.In(a.InRun), a.Flags("i"), a.Min(1), a.Max(4))`,
		`a.RunSucceeded(a.Named("finished"), a.Threshold(1))`,
		`a.InterruptCount(a.Kind(lux.Ask), a.Min(1))`,
		`a.ToolCalled("Bash", a.MinTimes(1), a.MaxTimes(2), a.By(a.MainAgent))`,
		`a.CostUnder(0.5, a.OnUnavailable(a.UnavailableFail))`,
		`a.ToolInvocation("add", a.Occurrence(a.OccurrenceAny), a.Output(a.Match{Contains: "ok"}))`,
	}
	for _, expr := range valid {
		if err := check(expr); err != nil {
			t.Errorf("%s does not compile: %v", expr, err)
		}
	}
	misuse := map[string]string{
		"flags on file-contains":           `a.FileContains("README.md", "## Usage", a.Flags("i"))`,
		"in on contains":                   `a.Contains("done", a.In(a.InRun))`,
		"min on tool-called":               `a.ToolCalled("Bash", a.Min(1))`,
		"max times on tool-called-with":    `a.ToolCalledWith("Bash", a.MaxTimes(1))`,
		"kind on tool-call-count":          `a.ToolCallCount(a.Kind(lux.Ask))`,
		"timeout on regex":                 `a.Regex("x", a.Timeout(time.Second))`,
		"a field on run-succeeded":         `a.RunSucceeded(a.Component(a.ComponentOutput))`,
		"component on cost-under":          `a.CostUnder(1, a.Component(a.ComponentOutput))`,
		"expected on tool-result-contains": `a.ToolResultContains("t", "x", a.Expected(true))`,
		"allow empty on tool-invocation":   `a.ToolInvocation("t", a.AllowEmpty())`,
		"occurrence on file-exists":        `a.FileExists("x", a.Occurrence(a.OccurrenceFirst))`,
	}
	for name, expr := range misuse {
		t.Run(name, func(t *testing.T) {
			err := check(expr)
			if err == nil {
				t.Fatalf("%s compiles; want a type error", expr)
			}
			if !strings.Contains(err.Error(), "does not implement") {
				t.Errorf("%s: %v; want an option type that does not implement the constructor's", expr, err)
			}
		})
	}
}

// typeChecker returns a function that type-checks expr, a Go expression
// over the packages a (assertion), lux and time, with the export data the
// go command builds for them.
func typeChecker(t *testing.T) func(expr string) error {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the export data: %v", err)
	}
	cmd := exec.Command(gocmd, "list", "-export", "-deps", "-json=ImportPath,Export",
		"github.com/luxeval/lux/assertion", "time")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return func(expr string) error {
		fset := token.NewFileSet()
		src := `package p

import (
	"time"

	"github.com/luxeval/lux"
	a "github.com/luxeval/lux/assertion"
)

var _ = time.Second
var _ = lux.Ask
var _ = ` + expr + "\n"
		f, err := parser.ParseFile(fset, "p.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, errors.New("no export data for " + path)
			}
			return os.Open(file)
		})
		_, err = (&types.Config{Importer: imp}).Check("p", fset, []*ast.File{f}, nil)
		return err
	}
}
