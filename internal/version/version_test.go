package version_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/internal/version"
)

func TestNormalizeVersion(t *testing.T) {
	for in, want := range map[string]string{
		"2.1.328 (Claude Code)":   "2.1.328",
		"codex-cli 0.169.0":       "0.169.0",
		"v1.4":                    "1.4",
		"2025.09.18-7ae6800":      "2025.09.18-7ae6800",
		"my-agent 1.0.0-rc.1":     "1.0.0-rc.1",
		"  0.1.2\n":               "0.1.2",
		"dev":                     "",
		"":                        "",
		`{"agentVersion":"1.0"}`:  "",
		"1.2.3-sk-test-secret-xy": "",
		"1.2.3-abcdefghijklmn":    "",
		"1.2.3+build7":            "1.2.3+build7",
	} {
		assert.Equal(t, want, version.Normalize(in), "Normalize(%q)", in)
	}
}

func TestVersionLine(t *testing.T) {
	for in, want := range map[string]bool{
		"2.1.328 (Claude Code)":                 true,
		"codex-cli 0.169.0":                     true,
		"1.0.0 key=sk-secret":                   false,
		"1.0.0 sk-ant-api03-abcdefghijklmnopqr": false,
		"1.0.0\tx":                              false,
		"no version here":                       false,
	} {
		assert.Equal(t, want, version.Line(in), "Line(%q)", in)
	}
}
