package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// recorder is a testing.TB that keeps what a check reported.
type recorder struct {
	testing.TB
	errors []string
	fatal  string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(fatal{})
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// run calls check with a recorder and returns it.
func run(t *testing.T, check func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(fatal); !ok {
					panic(v)
				}
			}
		}()
		check(r)
	}()
	return r
}

func withUpdate(t *testing.T, on bool) {
	old := *update
	*update = on
	t.Cleanup(func() { *update = old })
}

func TestEqual(t *testing.T) {
	withUpdate(t, false)
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, func(tb testing.TB) { Equal(tb, path, []byte("one\ntwo\n")) }); len(r.errors) > 0 || r.fatal != "" {
		t.Errorf("equal content reported %v %q", r.errors, r.fatal)
	}
	r := run(t, func(tb testing.TB) { Equal(tb, path, []byte("one\nthree\n")) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "out.golden differs (-want +got); run go test -update") ||
		!strings.Contains(r.errors[0], "+") || !strings.Contains(r.errors[0], "three") {
		t.Errorf("a difference reported %q", r.errors)
	}
	missing := filepath.Join(t.TempDir(), "missing.golden")
	r = run(t, func(tb testing.TB) { Equal(tb, missing, []byte("x")) })
	if !strings.Contains(r.fatal, "run go test -update to create it") {
		t.Errorf("a missing golden file reported %q", r.fatal)
	}
}

// Under -update the file (and its directory) is written, and the check
// passes.
func TestUpdateWrites(t *testing.T) {
	withUpdate(t, true)
	path := filepath.Join(t.TempDir(), "new", "dir", "out.golden")
	r := run(t, func(tb testing.TB) { Equal(tb, path, []byte("fresh\n")) })
	if len(r.errors) > 0 || r.fatal != "" {
		t.Fatalf("-update reported %v %q", r.errors, r.fatal)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" {
		t.Errorf("-update wrote %q, %v", b, err)
	}
	if !Updating() {
		t.Error("Updating() = false under -update")
	}
}

func TestJSON(t *testing.T) {
	withUpdate(t, false)
	path := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(path, []byte(`{"a": 1, "b": [0.1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Layout and the last bits of a float do not count, with EquateApprox.
	r := run(t, func(tb testing.TB) {
		JSON[any](tb, path, []byte(`{"b":[0.10000000000001],"a":1}`), cmpopts.EquateApprox(0, 1e-12))
	})
	if len(r.errors) > 0 || r.fatal != "" {
		t.Errorf("equal JSON reported %v %q", r.errors, r.fatal)
	}
	r = run(t, func(tb testing.TB) { JSON[any](tb, path, []byte(`{"a":1,"c":[0.1]}`)) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `"c"`) {
		t.Errorf("a renamed field reported %q", r.errors)
	}
	// A struct keeps integers beyond 2^53 exact.
	type big struct{ N uint64 }
	if err := os.WriteFile(path, []byte(`{"N": 18446744073709551615}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, func(tb testing.TB) { JSON[big](tb, path, []byte(`{"N": 18446744073709551614}`)) })
	if len(r.errors) != 1 {
		t.Errorf("integers one apart reported %q", r.errors)
	}
	r = run(t, func(tb testing.TB) { JSON[any](tb, path, []byte(`not json`)) })
	if !strings.Contains(r.fatal, "the output compared with") {
		t.Errorf("output that is not JSON reported %q", r.fatal)
	}
}
