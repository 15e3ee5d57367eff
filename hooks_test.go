package lux_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/luxeval/lux"
)

func TestRegisterHook(t *testing.T) {
	reg := lux.NewRegistry()
	p := &lux.HookPlugin{Name: "db", Doc: "starts a database", Version: "1",
		Parse: func(json.RawMessage) (lux.Hook, error) { return lux.HookFuncs{}, nil }}
	if err := reg.RegisterHook(p); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterHook(p); !errors.Is(err, lux.ErrDuplicatePlugin) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := reg.Hook("cache"); !errors.Is(err, lux.ErrUnknownPlugin) {
		t.Errorf("unknown: %v", err)
	}
	if got := reg.Hooks(); !cmp.Equal(got, []string{"db"}) {
		t.Errorf("Hooks() = %v", got)
	}
}
