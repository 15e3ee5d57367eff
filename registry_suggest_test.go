package lux_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

// An unknown plugin name close to a known one says which was meant.
func TestUnknownPluginSuggestsAName(t *testing.T) {
	for _, tt := range []struct {
		name  string
		known []string
		want  string
	}{
		{"claude", []string{"claude-code", "codex", "subprocess"}, `unknown plugin: driver "claude" (did you mean "claude-code"? known: claude-code, codex, subprocess)`},
		{"file-contain", []string{"file-contains", "file-exists"}, `unknown plugin: driver "file-contain" (did you mean "file-contains"? known: file-contains, file-exists)`},
		{"Codex", []string{"claude-code", "codex"}, `unknown plugin: driver "Codex" (did you mean "codex"? known: claude-code, codex)`},
		{"warp", []string{"claude-code", "codex"}, `unknown plugin: driver "warp" (known: claude-code, codex)`},
		// Two names as close: no guess.
		{"file", []string{"file-contains", "file-exists"}, `unknown plugin: driver "file" (known: file-contains, file-exists)`},
	} {
		e := &lux.UnknownPluginError{Kind: "driver", Name: tt.name, Known: tt.known}
		require.Equal(t, tt.want, e.Problem(), tt.name)
	}
}

// Two names one edit away are no guess, even when one other is two away.
func TestUnknownPluginNoGuessOnATie(t *testing.T) {
	e := &lux.UnknownPluginError{Kind: "assertion", Name: "fixe", Known: []string{"fix", "fixed", "fixes2"}}
	require.Equal(t, `unknown plugin: assertion "fixe" (known: fix, fixed, fixes2)`, e.Problem())
}
