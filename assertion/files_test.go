package assertion_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux"
)

func TestFileAssertions(t *testing.T) {
	runEvaluations(t, []evaluated{
		// file-exists
		{name: "exists", typ: "file-exists", cfg: `{"path":"README.md"}`, pass: true,
			comment: `"README.md" exists (24 bytes)`, detail: map[string]any{"size": 24, "in": "workspace"}},
		{name: "exists nested, cleaned", typ: "file-exists", cfg: `{"path":"./src/deep/../main.go"}`, pass: true},
		{name: "exists in run dir", typ: "file-exists", cfg: `{"path":"run.log","in":"run"}`, pass: true},
		{name: "missing", typ: "file-exists", cfg: `{"path":"CHANGELOG.md"}`,
			comment: `path "CHANGELOG.md" does not exist (in the workspace)`, detail: map[string]any{"refused": "missing"}},
		{name: "missing in run dir", typ: "file-exists", cfg: `{"path":"README.md","in":"run"}`,
			comment: `path "README.md" does not exist (in the run directory)`},
		{name: "directory is not a file", typ: "file-exists", cfg: `{"path":"src"}`,
			comment: `"src" is not a regular file (in the workspace)`},
		{name: "symlink refused", typ: "file-exists", cfg: `{"path":"link.md"}`,
			comment: `path "link.md" goes through a symlink (in the workspace)`, detail: map[string]any{"refused": "symlink"}},
		{name: "symlinked dir refused", typ: "file-exists", cfg: `{"path":"linkdir/main.go"}`,
			comment: `path "linkdir/main.go" goes through a symlink ("linkdir") (in the workspace)`},
		{name: "symlink out of the workspace refused", typ: "file-exists", cfg: `{"path":"escape"}`,
			detail: map[string]any{"refused": "symlink"}},

		// file-contains
		{name: "contains", typ: "file-contains", cfg: `{"path":"README.md","text":"## Usage"}`, pass: true,
			comment: `"README.md" contains "## Usage"`, detail: map[string]any{"offset": 8}},
		{name: "contains is case sensitive", typ: "file-contains", cfg: `{"path":"README.md","text":"## usage"}`,
			comment: `"README.md" does not contain "## usage"`},
		{name: "contains missing file", typ: "file-contains", cfg: `{"path":"nope.md","text":"x"}`,
			comment: `path "nope.md" does not exist (in the workspace)`},
		{name: "contains through symlink", typ: "file-contains", cfg: `{"path":"link.md","text":"Demo"}`,
			comment: `path "link.md" goes through a symlink (in the workspace)`},
		{name: "contains too large", typ: "file-contains", cfg: `{"path":"huge.bin","text":"x"}`,
			comment: `path "huge.bin" is 11534336 bytes, over the limit of 10485760 (in the workspace)`, detail: map[string]any{"refused": "too-large"}},

		// file-matches
		{name: "matches", typ: "file-matches", cfg: `{"path":"README.md","pattern":"^## \\w+$","flags":"m"}`, pass: true,
			detail: map[string]any{"match": "## Usage"}},
		{name: "matches needs m for ^", typ: "file-matches", cfg: `{"path":"README.md","pattern":"^## \\w+$"}`,
			comment: `"README.md" does not match /^## \w+$/`},
		{name: "matches ignore case", typ: "file-matches", cfg: `{"path":"README.md","pattern":"USAGE","flags":"i"}`, pass: true},
		{name: "matches dot-all", typ: "file-matches", cfg: `{"path":"README.md","pattern":"Demo.+Usage","flags":"s"}`, pass: true},
		{name: "matches without s", typ: "file-matches", cfg: `{"path":"README.md","pattern":"Demo.+Usage"}`},
		{name: "matches too large", typ: "file-matches", cfg: `{"path":"huge.bin","pattern":"x"}`,
			comment: `path "huge.bin" is 11534336 bytes, over the limit of 5242880 (in the workspace)`},

		// file-regex-count
		{name: "count in range", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"^error","flags":"m","min":2,"max":3}`, pass: true,
			comment: `3 matches of /^error/ in "log.txt": 3 >= 2, <= 3`, detail: map[string]any{"count": 3, "exact": true}},
		{name: "count with i", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"^error","flags":"mi","max":3}`,
			comment: `at least 4 matches of /^error/ in "log.txt": 4 > max 3`, detail: map[string]any{"count": 4, "exact": false}},
		{name: "count under min", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"warn","min":1}`,
			comment: `0 matches of /warn/ in "log.txt": 0 < min 1`},
		{name: "count min only stops early", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"error","min":2}`, pass: true,
			comment: `at least 2 matches of /error/ in "log.txt": 2 >= 2`},
		{name: "count max 0", typ: "file-regex-count", cfg: `{"path":"log.txt","pattern":"panic","max":0}`, pass: true,
			comment: `0 matches of /panic/ in "log.txt": 0 <= 0`},

		// json-pointer-equals
		{name: "pointer string", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/name","value":"demo"}`, pass: true,
			comment: `"data.json"/name = "demo"`},
		{name: "pointer number", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/version","value":3.0}`, pass: true},
		{name: "pointer float", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/ratio","value":0.5}`, pass: true},
		{name: "pointer big integer exact", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/big","value":12345678901234567891}`,
			comment: `"data.json"/big = 12345678901234567890, want 12345678901234567891`},
		{name: "pointer array element", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/1","value":"b"}`, pass: true},
		{name: "pointer whole array", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags","value":["a","b"]}`, pass: true},
		{name: "pointer array order matters", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags","value":["b","a"]}`},
		{name: "pointer escapes", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/nested/a~1b","value":1}`, pass: true},
		{name: "pointer tilde", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/nested/t~0","value":true}`, pass: true},
		{name: "pointer object key order", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/nested","value":{"t~":true,"a/b":1}}`, pass: true},
		{name: "pointer null", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/nil","value":null}`, pass: true},
		{name: "pointer null is not missing", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/absent","value":null}`,
			comment: `"data.json" has nothing at pointer "/absent"`},
		{name: "pointer wrong value", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/version","value":"3"}`,
			comment: `"data.json"/version = 3, want "3"`, detail: map[string]any{"actual": 3, "expected": "3"}},
		{name: "pointer index out of range", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/2","value":"c"}`},
		{name: "pointer leading zero index", typ: "json-pointer-equals", cfg: `{"path":"data.json","pointer":"/tags/01","value":"b"}`},
		{name: "pointer root", typ: "json-pointer-equals", cfg: `{"path":"data.json","value":{"name":"demo"}}`},
		{name: "pointer bad json", typ: "json-pointer-equals", cfg: `{"path":"bad.json","pointer":"/name","value":"x"}`,
			comment: `"bad.json" is not valid JSON: unexpected end of JSON input`},
		{name: "pointer missing file", typ: "json-pointer-equals", cfg: `{"path":"package.json","pointer":"/name","value":"x"}`,
			comment: `path "package.json" does not exist (in the workspace)`},
	})
}

func TestGlobCount(t *testing.T) {
	runEvaluations(t, []evaluated{
		{name: "any depth", typ: "glob-count", cfg: `{"glob":"**/*.go","min":3}`, pass: true,
			comment: `3 files match "**/*.go": 3 >= 3`,
			detail:  map[string]any{"count": 3, "files": []string{"src/deep/x.go", "src/main.go", "src/util.go"}}},
		{name: "dot files need a dot", typ: "glob-count", cfg: `{"glob":"src/.*.go","min":1,"max":1}`, pass: true,
			detail: map[string]any{"files": []string{"src/.hidden.go"}}},
		{name: "dot directories are not entered by **", typ: "glob-count", cfg: `{"glob":"**/config","max":0}`, pass: true},
		{name: "one level", typ: "glob-count", cfg: `{"glob":"src/*.go","min":1,"max":1}`,
			comment: `2 files match "src/*.go": 2 > max 1`},
		{name: "braces", typ: "glob-count", cfg: `{"glob":"{README.md,src/*.txt}","min":2,"max":2}`, pass: true,
			detail: map[string]any{"files": []string{"README.md", "src/notes.txt"}}},
		{name: "symlinks are not counted", typ: "glob-count", cfg: `{"glob":"*.md","max":1}`, pass: true,
			comment: `1 file match "*.md": 1 <= 1`, detail: map[string]any{"skippedSymlinks": []string{"link.md"}}},
		{name: "symlinked directories are not followed", typ: "glob-count", cfg: `{"glob":"linkdir/*.go","min":1}`,
			comment: `0 files match "linkdir/*.go": 0 < min 1`, detail: map[string]any{"files": []string{}, "skippedSymlinks": []string{"linkdir"}}},
		{name: "none", typ: "glob-count", cfg: `{"glob":"**/*.rs","min":1}`, comment: `0 files match "**/*.rs": 0 < min 1`},
		{name: "in run dir", typ: "glob-count", cfg: `{"glob":"*.log","in":"run","min":1,"max":1}`, pass: true},
	})
}

func TestFileAssertionRootProblemsAreErrors(t *testing.T) {
	for _, typ := range []string{"file-exists", "file-contains", "glob-count"} {
		cfg := map[string]string{
			"file-exists":   `{"path":"README.md"}`,
			"file-contains": `{"path":"README.md","text":"x"}`,
			"glob-count":    `{"glob":"*","min":1}`,
		}[typ]
		t.Run(typ, func(t *testing.T) {
			_, err := parse(t, typ, cfg).Evaluate(context.Background(), &lux.Run{})
			if err == nil || err.Error() != "assertion: "+typ+": the run has no workspace" {
				t.Errorf("Evaluate without a workspace = %v", err)
			}
		})
	}
}

func TestUnreadableFileIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	run := workspace(t)
	if err := os.Chmod(filepath.Join(run.Workspace, "README.md"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := parse(t, "file-contains", `{"path":"README.md","text":"x"}`).Evaluate(context.Background(), run)
	if err == nil {
		t.Fatal("want an error for an unreadable file")
	}
}
