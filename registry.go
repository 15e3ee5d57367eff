package lux

import (
	"fmt"
	"strings"
	"sync"

	"github.com/luxeval/lux/internal/naming"
)

// Registry holds the plugins an Orchestrator can use, by name. There is no
// global registry: build one with NewRegistry and register what you need.
// A Registry is safe for concurrent use.
type Registry struct {
	mu         sync.RWMutex
	drivers    map[string]*DriverPlugin
	answerers  map[string]*AnswererPlugin
	assertions map[string]*AssertionPlugin
	hooks      map[string]*HookPlugin
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		drivers:    map[string]*DriverPlugin{},
		answerers:  map[string]*AnswererPlugin{},
		assertions: map[string]*AssertionPlugin{},
		hooks:      map[string]*HookPlugin{},
	}
}

// RegisterDriver adds p. A plugin needs a Name, a Doc and a Parse function;
// a second plugin under the same name is an error wrapping
// ErrDuplicatePlugin.
func (r *Registry) RegisterDriver(p *DriverPlugin) error {
	if p == nil || p.Name == "" || p.Parse == nil {
		return fmt.Errorf("lux: driver plugin needs a Name and a Parse function")
	}
	if err := needDoc("driver", p.Name, p.Doc); err != nil {
		return err
	}
	if e := p.Experiment; e != nil && (strings.TrimSpace(e.Version) == "" || e.Prepare == nil || e.Identity == nil) {
		return fmt.Errorf("lux: driver %q: experiment support needs a non-blank Version, Prepare and Identity", p.Name)
	}
	return register(&r.mu, r.drivers, "driver", p.Name, p)
}

// RegisterAnswerer adds p; it needs a Name, a Doc and a Parse function, and
// a duplicate name is an error.
func (r *Registry) RegisterAnswerer(p *AnswererPlugin) error {
	if p == nil || p.Name == "" || p.Parse == nil {
		return fmt.Errorf("lux: answerer plugin needs a Name and a Parse function")
	}
	if err := needDoc("answerer", p.Name, p.Doc); err != nil {
		return err
	}
	return register(&r.mu, r.answerers, "answerer", p.Name, p)
}

// RegisterAssertion adds p; it needs a Type, a Doc and a Parse function,
// and a duplicate type is an error.
func (r *Registry) RegisterAssertion(p *AssertionPlugin) error {
	if p == nil || p.Type == "" || p.Parse == nil {
		return fmt.Errorf("lux: assertion plugin needs a Type and a Parse function")
	}
	if err := needDoc("assertion", p.Type, p.Doc); err != nil {
		return err
	}
	return register(&r.mu, r.assertions, "assertion", p.Type, p)
}

// Driver returns the driver registered as name, or an
// *UnknownPluginError (which matches ErrUnknownPlugin) listing the names
// known.
func (r *Registry) Driver(name string) (*DriverPlugin, error) {
	return lookup(&r.mu, r.drivers, "driver", name)
}

// Answerer returns the answerer registered as name.
func (r *Registry) Answerer(name string) (*AnswererPlugin, error) {
	return lookup(&r.mu, r.answerers, "answerer", name)
}

// Assertion returns the assertion plugin registered for type name.
func (r *Registry) Assertion(name string) (*AssertionPlugin, error) {
	return lookup(&r.mu, r.assertions, "assertion", name)
}

// Drivers returns the registered driver names, sorted.
func (r *Registry) Drivers() []string { return names(&r.mu, r.drivers) }

// Answerers returns the registered answerer names, sorted.
func (r *Registry) Answerers() []string { return names(&r.mu, r.answerers) }

// Assertions returns the registered assertion types, sorted.
func (r *Registry) Assertions() []string { return names(&r.mu, r.assertions) }

// needDoc refuses a plugin without a Doc: it is what `lux plugins` shows a
// user choosing a plugin for a case.
func needDoc(kind, name, doc string) error {
	if strings.TrimSpace(doc) == "" {
		return fmt.Errorf("lux: %s plugin %q has no Doc: set Doc to a sentence saying what it does (lux plugins shows it)", kind, name)
	}
	return nil
}

func register[P any](mu *sync.RWMutex, m map[string]P, kind, name string, p P) error {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := m[name]; dup {
		return fmt.Errorf("%w: %s %q", ErrDuplicatePlugin, kind, name)
	}
	m[name] = p
	return nil
}

func lookup[P any](mu *sync.RWMutex, m map[string]P, kind, name string) (P, error) {
	mu.RLock()
	defer mu.RUnlock()
	p, ok := m[name]
	if !ok {
		return p, &UnknownPluginError{Kind: kind, Name: name, Known: sortedKeys(m)}
	}
	return p, nil
}

func names[P any](mu *sync.RWMutex, m map[string]P) []string {
	mu.RLock()
	defer mu.RUnlock()
	return sortedKeys(m)
}

// UnknownPluginError is the error of a registry lookup of a name nothing
// is registered under. It matches ErrUnknownPlugin with errors.Is.
type UnknownPluginError struct {
	Kind  string   // "driver", "answerer" or "assertion"
	Name  string   // the name looked up
	Known []string // the names registered for Kind, sorted
}

// Problem says what is wrong as a field problem, without the package
// prefix: `unknown plugin: driver "c" (known: a, b)`.
func (e *UnknownPluginError) Problem() string {
	known := "none are registered"
	if len(e.Known) > 0 {
		known = "known: " + strings.Join(e.Known, ", ")
	}
	if guess := naming.Closest(e.Name, e.Known); guess != "" {
		known = fmt.Sprintf("did you mean %q? %s", guess, known)
	}
	return fmt.Sprintf("unknown plugin: %s %q (%s)", e.Kind, e.Name, known)
}

func (e *UnknownPluginError) Error() string { return "lux: " + e.Problem() }

// Is reports whether target is ErrUnknownPlugin.
func (e *UnknownPluginError) Is(target error) bool { return target == ErrUnknownPlugin }
