package driver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luxeval/lux"
)

// Parser adapts a driver's Parse, which returns its own config type, to
// lux.DriverPlugin.Parse: a failed parse is a nil lux.DriverConfig, never
// a nil *Config inside a non-nil interface.
func Parser[C lux.DriverConfig](parse func(json.RawMessage) (C, error)) func(json.RawMessage) (lux.DriverConfig, error) {
	return func(raw json.RawMessage) (lux.DriverConfig, error) {
		c, err := parse(raw)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// Experiment returns a driver's experiment support from its version and
// its prepare and identity functions, which take the driver's own config
// type C: a config of another type is refused with an error that starts
// with prefix (the driver's package, e.g. "codex") and names both types.
func Experiment[C lux.DriverConfig](prefix, version string, prepare func(C) (C, error), identity func(ctx context.Context, c C, root string) (any, error)) *lux.DriverExperiment {
	own := func(step string, dc lux.DriverConfig) (C, error) {
		c, ok := dc.(C)
		if !ok {
			return c, fmt.Errorf("%s: %s: config is %T, not %T", prefix, step, dc, c)
		}
		return c, nil
	}
	return &lux.DriverExperiment{
		Version: version,
		Prepare: func(dc lux.DriverConfig) (lux.DriverConfig, error) {
			c, err := own("prepare", dc)
			if err != nil {
				return nil, err
			}
			out, err := prepare(c)
			if err != nil {
				return nil, err
			}
			return out, nil
		},
		Identity: func(ctx context.Context, dc lux.DriverConfig, root string) (any, error) {
			c, err := own("identity", dc)
			if err != nil {
				return nil, err
			}
			return identity(ctx, c, root)
		},
	}
}
