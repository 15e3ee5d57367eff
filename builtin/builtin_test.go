package builtin_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/builtin"
)

func TestRegisterTwiceFails(t *testing.T) {
	reg := builtin.Registry()
	if err := builtin.Register(reg); !errors.Is(err, lux.ErrDuplicatePlugin) {
		t.Fatalf("second Register: got %v, want ErrDuplicatePlugin", err)
	}
}

func ExampleRegistry() {
	reg := builtin.Registry()
	fmt.Println(reg.Drivers())
	fmt.Println(reg.Answerers())
	// Output:
	// [claude-code codex cursor mcp-probe subprocess]
	// [persona scripted terminal]
}
