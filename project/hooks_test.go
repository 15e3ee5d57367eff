package project_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/project"
)

// lux.json references hooks registered from Go, by name, with their
// config; they reach the orchestrator's options in order.
func TestHooksReachTheOptions(t *testing.T) {
	t.Parallel()
	dir := write(t, `{"hooks": [{"name": "postgres", "config": {"port": 5432}}, {"name": "dev-server"}]}`)
	f, err := project.Find(dir)
	require.NoError(t, err)
	o, err := f.Options("")
	require.NoError(t, err)
	require.Len(t, o.Hooks, 2)
	assert.Equal(t, "postgres", o.Hooks[0].Name)
	assert.Equal(t, "dev-server", o.Hooks[1].Name)

	dir = write(t, `{"hooks": [{"config": {}}]}`)
	_, err = project.Find(dir)
	require.ErrorIs(t, err, lux.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "hooks[0].name: required")
}
