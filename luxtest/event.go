package luxtest

import (
	"fmt"
	"strings"

	"github.com/luxeval/lux"
)

// payloadField names the Event field each event type a driver may emit
// carries.
var payloadField = map[lux.EventType]string{
	lux.EventReady:     "Ready",
	lux.EventProgress:  "Progress",
	lux.EventInterrupt: "Interrupt",
	lux.EventDone:      "Done",
	lux.EventError:     "Error",
}

// malformed says what is wrong with an event a driver emitted, or "".
// Exactly the field matching the type is set; interrupts have a known kind
// and an id; responded and lifecycle events belong to the harness.
func malformed(e lux.Event) string {
	switch e.Type {
	case lux.EventResponded, lux.EventLifecycle:
		return fmt.Sprintf("the driver emitted a %s event; only the harness records those", e.Type)
	}
	want, known := payloadField[e.Type]
	if !known {
		return fmt.Sprintf("an event of unknown type %q", e.Type)
	}
	var problems []string
	set := map[string]bool{
		"Ready": e.Ready != nil, "Progress": e.Progress != nil, "Interrupt": e.Interrupt != nil,
		"Answer": e.Answer != nil, "Done": e.Done != nil, "Error": e.Error != nil, "Stage": e.Stage != "",
	}
	if !set[want] {
		problems = append(problems, "its "+want+" field is nil")
	}
	for _, f := range []string{"Ready", "Progress", "Interrupt", "Answer", "Done", "Error", "Stage"} {
		if f != want && set[f] {
			problems = append(problems, "it also sets "+f)
		}
	}
	switch {
	case e.Progress != nil && e.Type == lux.EventProgress && strings.TrimSpace(e.Progress.Kind) == "":
		problems = append(problems, "its progress has no kind")
	case e.Interrupt != nil && e.Type == lux.EventInterrupt:
		if _, ok := interruptCapability[e.Interrupt.Kind]; !ok {
			problems = append(problems, fmt.Sprintf("its kind %q is not ask, approve or custom", e.Interrupt.Kind))
		}
		if e.Interrupt.ID == "" {
			problems = append(problems, "it has no id, so no answer can match it")
		}
	case e.Error != nil && e.Type == lux.EventError:
		switch e.Error.ExitReason {
		case "", lux.ExitError, lux.ExitIdleTimeout, lux.ExitMaxInteractions, lux.ExitCancelled:
		default:
			problems = append(problems, fmt.Sprintf("its exit reason %q is not one of error, idle-timeout, max-interactions, cancelled", e.Error.ExitReason))
		}
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("a malformed %s event: %s", e.Type, strings.Join(problems, "; "))
}

// describe names an event briefly, for messages.
func describe(e lux.Event) string {
	switch {
	case e.Type == lux.EventError && e.Error != nil && e.Error.Reason != "":
		return fmt.Sprintf("error %q", e.Error.Reason)
	case e.Type == lux.EventInterrupt && e.Interrupt != nil:
		return fmt.Sprintf("%s interrupt %q", e.Interrupt.Kind, e.Interrupt.ID)
	}
	return string(e.Type)
}
