package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/luxeval/lux/driver"
)

func TestBuildEnv(t *testing.T) {
	t.Setenv("LUX_ENV_TEST_HOST", "host")
	got := driver.BuildEnv(false, map[string]string{"B": "1", "A": "x"}, map[string]string{"A": "2"})
	assert.Equal(t, []string{"A=2", "B=1"}, got)

	inherited := driver.BuildEnv(true, map[string]string{"LUX_ENV_TEST_HOST": "override", "NEW": "n"})
	v, ok := driver.LookupEnv(inherited, "LUX_ENV_TEST_HOST")
	assert.True(t, ok)
	assert.Equal(t, "override", v)
	_, ok = driver.LookupEnv(inherited, "PATH")
	assert.True(t, ok, "host PATH inherited")

	_, ok = driver.LookupEnv(driver.BuildEnv(false), "PATH")
	assert.False(t, ok, "nothing inherited")
	assert.Empty(t, driver.BuildEnv(false))
}
