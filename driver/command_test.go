package driver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/driver"
)

func TestCommandInfo(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	tool := filepath.Join(dir, "tool")
	script := "#!/bin/sh\necho x >> '" + count + "'\necho\necho 'tool 1.2.3'\necho 'more'\n"
	require.NoError(t, os.WriteFile(tool, []byte(script), 0o755))

	ctx := context.Background()
	want := lux.CommandInfo{Name: tool, Path: tool, Version: "tool 1.2.3"}
	assert.Equal(t, want, driver.CommandInfo(ctx, tool))
	assert.Equal(t, want, driver.CommandInfo(ctx, tool))
	runs, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(runs), "x"), "--version is run once per path")

	t.Setenv("PATH", dir)
	assert.Equal(t, lux.CommandInfo{Name: "tool", Path: tool, Version: "tool 1.2.3"}, driver.CommandInfo(ctx, "tool"))

	assert.Equal(t, lux.CommandInfo{Name: "lux-no-such-tool"}, driver.CommandInfo(ctx, "lux-no-such-tool"))
	assert.Equal(t, lux.CommandInfo{Name: "/nonexistent/tool"}, driver.CommandInfo(ctx, "/nonexistent/tool"))
}

func TestCommandInfoFailingVersion(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "tool")
	require.NoError(t, os.WriteFile(tool, []byte("#!/bin/sh\necho nope; exit 1\n"), 0o755))
	assert.Equal(t, lux.CommandInfo{Name: tool, Path: tool}, driver.CommandInfo(context.Background(), tool))
}
