package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/textline"
	"github.com/luxeval/lux/record"
)

// resolveRecord finds what `lux view ARG` shows: a run or suite directory
// as given; "latest", the latest suite under root (or its latest run when
// it holds no suite); else a case id, that case's latest run.
func resolveRecord(root, arg string) (string, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return arg, nil
	}
	runs, err := record.FindRuns(root)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(arg, record.LabelPrefix) {
		return record.ResolveSuite(root, arg)
	}
	if arg == record.LatestRef {
		suites, err := record.FindSuites(root)
		if err != nil {
			return "", err
		}
		if len(suites) > 0 {
			return record.ResolveSuite(root, arg)
		}
		if l := latest(runs, 1); len(l) == 1 {
			return l[0], nil
		}
		return "", fmt.Errorf("no records under %s", root)
	}
	sorted := latest(runs, 0)
	for i := len(sorted) - 1; i >= 0; i-- {
		if m, _, err := record.ReadMetadata(sorted[i]); err == nil && m.CaseID == arg {
			return sorted[i], nil
		}
	}
	return "", errors.New(arg + ` is neither a run or suite directory, nor the id of a case recorded under ` + root + ` (nor "latest" or "label:NAME")`)
}

// writeEvents prints the run's last events (all with -events 0), the
// harness's lifecycle events only with -v.
func writeEvents(w io.Writer, r *record.Run, o viewOptions) {
	var shown []lux.Event
	hidden := 0
	for _, ev := range r.Events {
		if ev.Type == lux.EventLifecycle && !o.verbose {
			hidden++
			continue
		}
		shown = append(shown, ev)
	}
	n := len(shown)
	if n == 0 {
		return
	}
	from := 0
	if o.events > 0 && n > o.events {
		from = n - o.events
	}
	if from == 0 {
		fmt.Fprintf(w, "events (%d):\n", n)
	} else {
		fmt.Fprintf(w, "last events (%d of %d; -events 0 shows all):\n", n-from, n)
	}
	start := r.Metadata.StartedAt
	for _, ev := range shown[from:] {
		fmt.Fprintf(w, "  %8s  %s\n", sinceStart(start, ev.Time), eventLine(ev))
	}
	if hidden > 0 {
		fmt.Fprintf(w, "  (%d lifecycle events hidden; -v shows them)\n", hidden)
	}
}

// sinceStart is when t was, from the run's start: "+1.25s".
func sinceStart(start, t time.Time) string {
	if t.IsZero() || start.IsZero() {
		return ""
	}
	d := t.Sub(start)
	if d < 0 {
		d = 0
	}
	return "+" + d.Round(time.Millisecond).String()
}

// maxInputText bounds a tool call's input in an event line.
const maxInputText = 160

func eventLine(ev lux.Event) string {
	switch ev.Type {
	case lux.EventReady:
		if ev.Ready == nil {
			return "ready"
		}
		return "ready " + ev.Ready.AgentID
	case lux.EventProgress:
		p := ev.Progress
		if p == nil {
			return "progress"
		}
		switch {
		case p.Message != nil:
			return p.Kind + ": " + textline.One(p.Message.Text, 120)
		case p.ToolCall != nil:
			return "tool-call " + p.ToolCall.Name + " " + textline.One(compactJSON(p.ToolCall.Input), maxInputText)
		case p.ToolResult != nil:
			status := "ok"
			if p.ToolResult.IsError {
				status = "error"
			}
			line := "tool-result " + p.ToolResult.Name + " (" + status + ")"
			if t := textline.One(p.ToolResult.Text, 80); t != "" {
				line += ": " + t
			}
			return line
		case p.Kind == lux.KindOffProtocol:
			var off lux.OffProtocol
			if json.Unmarshal(p.Payload, &off) == nil {
				return offProtocolLine(off)
			}
		}
		return "progress " + p.Kind
	case lux.EventInterrupt:
		return fmt.Sprintf("interrupt(%s): %s", ev.Interrupt.Kind, textline.One(ev.Interrupt.Text(), 120))
	case lux.EventResponded:
		a := ev.Answer
		switch a.Kind {
		case lux.Ask:
			return "responded(ask): " + textline.One(a.Text, 120)
		case lux.Approve:
			return fmt.Sprintf("responded(approve): %v %s", a.Approved, a.Reason)
		}
		return "responded(" + string(a.Kind) + ")"
	case lux.EventDone:
		return "done"
	case lux.EventError:
		return fmt.Sprintf("error(%s): %s", ev.Error.ExitReason, textline.One(ev.Error.Reason, 160))
	case lux.EventLifecycle:
		return "lifecycle " + string(ev.Stage)
	}
	return string(ev.Type)
}

// offProtocolLine says how many of the agent's output lines were ignored
// as not part of its protocol, and quotes the first few.
func offProtocolLine(off lux.OffProtocol) string {
	quoted := make([]string, len(off.First))
	for i, l := range off.First {
		quoted[i] = "`" + textline.One(l, 80) + "`"
	}
	noun := "lines"
	if off.Dropped == 1 {
		noun = "line"
	}
	return fmt.Sprintf("off-protocol: %d %s of output ignored (not protocol events): %s", off.Dropped, noun, strings.Join(quoted, ", "))
}

func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
