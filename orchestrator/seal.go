package orchestrator

import (
	"fmt"
	"sync"

	"github.com/luxeval/lux/record"
)

// sealer seals the records an Orchestrator writes with its runs root's
// key (record.OpenSealKey), opened once, when first needed.
type sealer struct {
	once sync.Once
	key  *record.SealKey
	err  error
}

// sealKey returns the runs root's sealing key, creating it when the root
// has none.
func (o *Orchestrator) sealKey() (*record.SealKey, error) {
	o.sealer.once.Do(func() {
		o.sealer.key, o.sealer.err = record.OpenSealKey(o.opts.RunsRoot)
	})
	return o.sealer.key, o.sealer.err
}

// writeSuiteFile replaces the file name of the suite directory dir with
// data, sealed (see record.Writer.WriteSealed).
func (o *Orchestrator) writeSuiteFile(dir, name string, data []byte) error {
	key, err := o.sealKey()
	if err != nil {
		return fmt.Errorf("orchestrator: seal %s: %w", dir, err)
	}
	return o.writer.WriteSealed(dir, "suite", key, name, data)
}

// sealNewRun seals a run's record as the harness wrote it: the events as
// logged, the JSON files as written, and no gradings (see
// record.Writer.SealRun).
func (o *Orchestrator) sealNewRun(dir string, n *record.NewRun) error {
	key, err := o.sealKey()
	if err != nil {
		return fmt.Errorf("orchestrator: seal %s: %w", dir, err)
	}
	return o.writer.SealRun(dir, "run", key, n)
}

// writeSuiteJSON is writeSuiteFile of v encoded as record.Writer.WriteJSON
// does.
func (o *Orchestrator) writeSuiteJSON(dir, name string, v any) error {
	key, err := o.sealKey()
	if err != nil {
		return fmt.Errorf("orchestrator: seal %s: %w", dir, err)
	}
	return o.writer.WriteJSONSealed(dir, "suite", key, name, v)
}
