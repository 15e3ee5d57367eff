package orchestrator

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
)

// Once a suite's runs are over, nothing of the suite holds its cases (nor
// their plans) while it builds and writes its summary: what it keeps of
// each run is the run's brief (record.RunBrief).
func TestSuiteHoldsNoCaseOnceItsRunsAreOver(t *testing.T) {
	scen := addScenario(t, writeHello)
	var held []weak.Pointer[lux.Case]
	cases := func() []*lux.Case {
		cs := make([]*lux.Case, 8)
		for i := range cs {
			cs[i] = &lux.Case{ID: fmt.Sprint("c", i), Prompt: "p", Driver: driverRef(scen)}
			held = append(held, weak.Make(cs[i]))
		}
		return cs
	}
	alive := -1
	o := newTestOrchestrator(t, Options{Concurrency: 2, Progress: func(u Update) {
		if u.Kind == SuiteEnded {
			runtime.GC()
			alive = 0
			for _, w := range held {
				if w.Value() != nil {
					alive++
				}
			}
		}
	}})
	res, err := o.RunSuite(context.Background(), cases())
	require.NoError(t, err)
	require.Equal(t, 8, res.Summary.Totals.Completed)
	assert.Equal(t, 0, alive, "cases still held when the suite ended")
}
