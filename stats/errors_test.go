package stats

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorCarriesCodeAndDetail(t *testing.T) {
	_, err := Mean([]float64{1}, nil, Config{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Code != CodeTooFewUnits || !errors.Is(err, ErrTooFewUnits) || errors.Is(err, ErrMethod) {
		t.Errorf("code %q; is ErrTooFewUnits %v, is ErrMethod %v", e.Code, errors.Is(err, ErrTooFewUnits), errors.Is(err, ErrMethod))
	}
	if want := "1 values, need at least 2 (Config.MinUnits)"; e.Detail != want {
		t.Errorf("detail %q, want %q", e.Detail, want)
	}
	if want := "too few independent units: " + e.Detail; e.Message() != want || Message(err) != want {
		t.Errorf("message %q / %q, want %q", e.Message(), Message(err), want)
	}
	if err.Error() != "stats: "+e.Message() {
		t.Errorf("text %q", err)
	}
	if ErrTooFewUnits.Error() != "stats: too few independent units" {
		t.Errorf("sentinel text %q", ErrTooFewUnits)
	}
}

func TestMessageOfSeveralErrors(t *testing.T) {
	_, err := Mean([]float64{0, 1, 1}, nil, Config{Method: "nope", Level: 2})
	got := Message(err)
	if !errors.Is(err, ErrMethod) || !errors.Is(err, ErrLevel) {
		t.Fatalf("error %v does not match both sentinels", err)
	}
	if strings.Contains(got, "stats: ") || !strings.Contains(got, "method does not apply: unknown method") ||
		!strings.Contains(got, "; confidence level out of range: got 2, want 0") {
		t.Errorf("message %q", got)
	}
	if wrapped := fmt.Errorf("pass rate: %w", ErrTooFewUnits); Message(wrapped) != "pass rate: stats: too few independent units" {
		t.Errorf("a wrapping error's message is %q", Message(wrapped))
	}
	if other := errors.New("x: y"); Message(other) != "x: y" {
		t.Errorf("a foreign error's message is %q", Message(other))
	}
}

func TestEveryCodeHasALabel(t *testing.T) {
	codes := append(WarningCodes(), CodeNonFinite, CodeLength, CodeTooFewUnits, CodeLevel,
		CodeMethod, CodeDomain, CodeConfig, CodeArgument)
	if len(codes) != len(codeLabels) {
		t.Errorf("%d codes, %d labels", len(codes), len(codeLabels))
	}
	for _, c := range codes {
		if codeLabels[c] == "" {
			t.Errorf("code %q has no label", c)
		}
	}
}
