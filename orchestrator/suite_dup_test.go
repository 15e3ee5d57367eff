package orchestrator

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/record"
)

// Two different cases under one canonical id would be pooled as
// repetitions of one measurement: the suite is refused before anything runs.
func TestSuiteRefusesDuplicateCaseIDs(t *testing.T) {
	o := newTestOrchestrator(t, Options{})
	scen := addScenario(t, writeHello)
	cases := []*lux.Case{
		{ID: "login", Prompt: "p", Driver: driverRef(scen)},
		{ID: "other", Prompt: "q", Driver: driverRef(scen)},
		{Path: "web/login.case.json", Prompt: "r", Driver: driverRef(scen)},
	}
	res, err := o.RunSuite(context.Background(), cases)
	require.Error(t, err)
	assert.Nil(t, res)
	assert.True(t, errors.Is(err, lux.ErrInvalidCase))
	assert.Contains(t, err.Error(), `cases[2]: lux: invalid case: id: "login" is also the id of cases[0]`)
	suites, err := record.FindSuites(o.RunsRoot())
	require.NoError(t, err)
	assert.Empty(t, suites, "nothing ran")
}
