// Package golden compares a test's output with a golden file under
// testdata, for the module's tests. `go test ./PKG -update` rewrites the
// golden files of PKG with what the tests produce, creating them (and
// their directories) when missing; review the diff before committing it.
//
// A test package that imports golden gets the -update flag from it, so it
// must not declare its own.
package golden

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with what the tests produce")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Equal compares got with the golden file at path, byte for byte, or
// rewrites the file with got under -update.
func Equal(t testing.TB, path string, got []byte) {
	t.Helper()
	want, ok := read(t, path, got)
	if !ok {
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", path, diff)
	}
}

// JSON compares got, a JSON document, with the golden file at path as
// values of type T compared with opts (as go-cmp compares them), or
// rewrites the file with got under -update. Decoding into a struct keeps
// integers exact; T = any with cmpopts.EquateApprox tolerates the last bits
// of a float.
func JSON[T any](t testing.TB, path string, got []byte, opts ...cmp.Option) {
	t.Helper()
	want, ok := read(t, path, got)
	if !ok {
		return
	}
	var w, g T
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("the output compared with %s: %v", path, err)
	}
	if diff := cmp.Diff(w, g, opts...); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", path, diff)
	}
}

// read returns the golden file's content to compare got with, or writes
// got there under -update and returns false.
func read(t testing.TB, path string, got []byte) ([]byte, bool) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return nil, false
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	return want, true
}
