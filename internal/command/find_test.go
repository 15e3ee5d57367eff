package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Find is where every driver and the orchestrator's provenance find a
// command: a relative path against the case directory, a bare name on the
// agent's PATH before the harness's.
func TestFind(t *testing.T) {
	harness, agent, cases := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(harness, "both"), filepath.Join(agent, "both"), filepath.Join(harness, "only-harness"), filepath.Join(cases, "rel.sh")} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(agent, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", harness)
	tests := []struct {
		name, dir, cmd, searchPath string
		want, wantErr              string
	}{
		{name: "bare name on the harness's PATH", cmd: "both", want: filepath.Join(harness, "both")},
		{name: "the agent's PATH first", cmd: "both", searchPath: agent, want: filepath.Join(agent, "both")},
		{name: "then the harness's", cmd: "only-harness", searchPath: agent, want: filepath.Join(harness, "only-harness")},
		{name: "relative entries of the agent's PATH are skipped", cmd: "both", searchPath: "relative:" + agent, want: filepath.Join(agent, "both")},
		{name: "a non-executable file is passed over", cmd: "plain", searchPath: agent, wantErr: "not found on the agent's PATH"},
		{name: "a relative path against the case directory", dir: cases, cmd: "./rel.sh", searchPath: agent, want: filepath.Join(cases, "rel.sh")},
		{name: "a missing path", dir: cases, cmd: "./missing.sh", wantErr: "no such file"},
		{name: "a directory", cmd: agent, wantErr: "not an executable file"},
		{name: "nothing", wantErr: "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.dir, tt.cmd, tt.searchPath)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find: got %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Find: got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
