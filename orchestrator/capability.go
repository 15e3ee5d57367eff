package orchestrator

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/luxeval/lux"
)

// ErrMissingCapability reports a driver that does not declare a capability
// a case requires.
var ErrMissingCapability = errors.New("lux: driver lacks required capabilities")

// ErrNoAnswerer reports an interrupt in a run that has no answerer.
var ErrNoAnswerer = errors.New("lux: no answerer for interrupt")

// CheckCapabilities returns a *MissingCapabilityError (which matches
// ErrMissingCapability) naming every capability in required that the
// driver does not declare, or nil.
func CheckCapabilities(driver string, r lux.Runtime, required []lux.Capability) error {
	missing := r.Missing(required)
	if len(missing) == 0 {
		return nil
	}
	return &MissingCapabilityError{Driver: driver, Missing: missing, Declared: slices.Clone(r.Capabilities)}
}

// MissingCapabilityError is the error of a driver that does not declare
// capabilities a case requires. It matches ErrMissingCapability with
// errors.Is.
type MissingCapabilityError struct {
	Driver   string
	Missing  []lux.Capability // required and not declared, in the order required
	Declared []lux.Capability // what the driver declares
}

// Problem says what is wrong as a field problem, without the sentinel:
// `driver "cursor" does not declare ask, approve (it declares: usage)`.
func (e *MissingCapabilityError) Problem() string {
	declared := "none"
	if len(e.Declared) > 0 {
		declared = joinCapabilities(e.Declared)
	}
	return fmt.Sprintf("driver %q does not declare %s (it declares: %s)", e.Driver, joinCapabilities(e.Missing), declared)
}

func (e *MissingCapabilityError) Error() string {
	return ErrMissingCapability.Error() + ": " + e.Problem()
}

// Is reports whether target is ErrMissingCapability.
func (e *MissingCapabilityError) Is(target error) bool { return target == ErrMissingCapability }

func joinCapabilities(cs []lux.Capability) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
