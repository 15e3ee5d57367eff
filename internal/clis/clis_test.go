package clis

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLookupPrefersTheCache(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(bin, "fakecli-xyz")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LUX_CLI_CACHE", dir)
	if got := Lookup("fakecli-xyz"); got != fake {
		t.Fatalf("Lookup = %q, want %q", got, fake)
	}
	if got := Lookup("no-such-cli-xyz"); got != "" {
		t.Fatalf("Lookup of a missing CLI = %q, want empty", got)
	}
	if err := os.Chmod(fake, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Lookup("fakecli-xyz"); got != "" {
		t.Fatalf("a non-executable file was returned: %q", got)
	}
}
