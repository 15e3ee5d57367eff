// Package terminal is the answerer through which a person answers the
// agent's interrupts in the terminal: a question gets a line of free text
// (or the number of one of the options listed), an approval a [y/N] where
// anything but y or yes is a denial with an optional reason, a custom
// interrupt one line of JSON, asked again until it is valid. It refuses to
// start without a terminal; lux run -interactive selects it.
package terminal

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/luxeval/lux"
)

// Name is the answerer's name.
const Name = "terminal"

// ErrNoTerminal is returned when the answerer's input is not a terminal.
var ErrNoTerminal = errors.New("terminal: standard input is not a terminal; the terminal answerer (lux run -interactive) needs a person at a terminal: run lux in one, or drop -interactive and name a scripted or persona answerer")

// Options are where the answerer reads and writes; the zero value is the
// process's standard input and standard error.
type Options struct {
	In    io.Reader
	Out   io.Writer
	IsTTY func() bool // nil: whether standard input is a character device
}

// Config is the terminal answerer's config; it has no fields.
type Config struct {
	term *term
}

type term struct {
	mu    sync.Mutex
	in    *bufio.Reader
	out   io.Writer
	isTTY func() bool
}

// Plugin returns the answerer on the process's terminal.
func Plugin() *lux.AnswererPlugin { return PluginWith(Options{}) }

// PluginWith returns the answerer reading and writing where opts says.
func PluginWith(opts Options) *lux.AnswererPlugin {
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stderr
	}
	if opts.IsTTY == nil {
		opts.IsTTY = StdinIsTerminal
	}
	t := &term{in: bufio.NewReader(opts.In), out: opts.Out, isTTY: opts.IsTTY}
	return &lux.AnswererPlugin{
		Name: Name,
		Doc:  "A person answers in the terminal: questions as text, approvals as [y/N], custom interrupts as JSON.",
		Parse: func(raw json.RawMessage) (lux.AnswererConfig, error) {
			c := &Config{}
			if err := lux.DecodeConfig(raw, c); err != nil {
				return nil, err
			}
			c.term = t
			return c, nil
		},
	}
}

// StdinIsTerminal reports whether the process's standard input is a
// terminal.
func StdinIsTerminal() bool { return isTerminal(os.Stdin) }

// Prepare returns the answerer of one run, or ErrNoTerminal.
func (c *Config) Prepare(ctx context.Context, info lux.AnswererInfo) (lux.Answerer, error) {
	if !c.term.isTTY() {
		return nil, ErrNoTerminal
	}
	return &answerer{t: c.term, caseID: info.CaseID}, nil
}

type answerer struct {
	t      *term
	caseID string
}

func (a *answerer) Usage() lux.ModelUsage { return lux.ModelUsage{} }
func (a *answerer) Close() error          { return nil }

// Answer asks the person; runs answer one at a time.
func (a *answerer) Answer(ctx context.Context, in lux.Interrupt, history []lux.Exchange) (lux.Answer, error) {
	t := a.t
	t.mu.Lock()
	defer t.mu.Unlock()
	out := lux.Answer{Kind: in.Kind, ID: in.ID}
	fmt.Fprintf(t.out, "\n[%s] the agent %s:\n", a.caseID, verb(in.Kind))
	switch in.Kind {
	case lux.Ask:
		return a.ask(in, out)
	case lux.Approve:
		fmt.Fprintf(t.out, "%s\nApprove? [y/N] ", in.Text())
		line, err := t.line()
		if err != nil {
			return lux.Answer{}, err
		}
		switch strings.ToLower(line) {
		case "y", "yes":
			out.Approved = true
		default:
			fmt.Fprint(t.out, "Reason (optional): ")
			if out.Reason, err = t.line(); err != nil {
				return lux.Answer{}, err
			}
		}
		return out, nil
	default:
		fmt.Fprintf(t.out, "%s\n", in.Text())
		for {
			fmt.Fprint(t.out, "Answer as one line of JSON: ")
			line, err := t.line()
			if err != nil {
				return lux.Answer{}, err
			}
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				fmt.Fprintf(t.out, "not valid JSON (%v); try again\n", err)
				continue
			}
			out.Payload = v
			return out, nil
		}
	}
}

// ask asks each question of in, listing its options; a number picks one.
func (a *answerer) ask(in lux.Interrupt, out lux.Answer) (lux.Answer, error) {
	t := a.t
	qs := in.Questions
	if len(qs) == 0 {
		qs = []lux.Question{{Text: in.Question}}
	}
	for _, q := range qs {
		fmt.Fprintf(t.out, "%s\n", q.Text)
		for i, o := range q.Options {
			fmt.Fprintf(t.out, "  %d. %s\n", i+1, o.Label)
		}
		if len(q.Options) > 0 {
			fmt.Fprint(t.out, "Answer (a number or text): ")
		} else {
			fmt.Fprint(t.out, "Answer: ")
		}
		line, err := t.line()
		if err != nil {
			return lux.Answer{}, err
		}
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(q.Options) {
			line = q.Options[n-1].Label
		}
		if q.ID == "" || len(in.Questions) == 1 {
			out.Text = line
		}
		if q.ID != "" && len(in.Questions) > 1 {
			if out.Answers == nil {
				out.Answers = map[string]string{}
			}
			out.Answers[q.ID] = line
		}
	}
	return out, nil
}

// line reads one line, without its end.
func (t *term) line() (string, error) {
	s, err := t.in.ReadString('\n')
	if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
		if errors.Is(err, io.EOF) {
			return "", errors.New("terminal: the input ended before the answer (end of file)")
		}
		return "", fmt.Errorf("terminal: %w", err)
	}
	return strings.TrimSpace(s), nil
}

func verb(k lux.InterruptKind) string {
	switch k {
	case lux.Ask:
		return "asks"
	case lux.Approve:
		return "asks for approval"
	default:
		return "asks for a JSON answer"
	}
}
