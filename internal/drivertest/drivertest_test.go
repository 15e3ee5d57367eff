package drivertest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/luxeval/lux/driver/subprocess"
	"github.com/luxeval/lux/internal/drivertest"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) FailNow() { panic(r) }

// run calls check with a recorder and returns what it recorded.
func run(t *testing.T, check func(testing.TB)) (failures []string) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		failures = r.failures
	}()
	check(r)
	return r.failures
}

func TestSecretStaysOut(t *testing.T) {
	const secret = "sk-drivertest-0123456789"
	record := func(t *testing.T, content string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	clean := json.RawMessage(`{"command":"/bin/sh"}`)
	tests := []struct {
		name   string
		raw    json.RawMessage
		record string
		fails  bool
	}{
		{name: "nothing holds it", raw: clean, record: "{}"},
		{name: "a file holds its end", raw: clean, record: "key ..." + secret[len(secret)-10:], fails: true},
		{name: "the config holds it", raw: json.RawMessage(`{"command":"/bin/sh","env":{"KEY":"` + secret + `"}}`), record: "{}", fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := record(t, tt.record)
			failures := run(t, func(tb testing.TB) {
				drivertest.SecretStaysOut(tb, subprocess.Plugin(), tt.raw, dir, secret)
			})
			if got := len(failures) > 0; got != tt.fails {
				t.Errorf("failed = %v, want %v: %q", got, tt.fails, failures)
			}
		})
	}
}
