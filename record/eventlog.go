package record

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/luxeval/lux"
)

// Default caps of an event log.
const (
	DefaultMaxEventBytes = 10 << 20 // 10 MiB
	DefaultMaxEvents     = 50_000
)

// ErrTraceLimit reports an event log that reached its cap. The log holds
// one diagnostic error line saying which cap was hit; later appends are
// dropped.
var ErrTraceLimit = errors.New("record: run trace limit exceeded")

// TraceLimitError is the error of an event log that reached a cap: Limit
// events or bytes (Unit "event" or "byte"). It matches ErrTraceLimit with
// errors.Is.
type TraceLimitError struct {
	Limit int64
	Unit  string
}

// Reason is the reason the diagnostic line of the log gives, such as "run
// trace exceeded the 50000-event limit".
func (e *TraceLimitError) Reason() string {
	return "run trace exceeded the " + strconv.FormatInt(e.Limit, 10) + "-" + e.Unit + " limit"
}

func (e *TraceLimitError) Error() string { return ErrTraceLimit.Error() + ": " + e.Reason() }

// Is reports whether target is ErrTraceLimit.
func (e *TraceLimitError) Is(target error) bool { return target == ErrTraceLimit }

// ErrUnencodable reports a value that does not encode as JSON (a channel,
// a NaN, a malformed json.RawMessage, a MarshalJSON that fails or
// panics). Nothing of it is written.
var ErrUnencodable = errors.New("record: does not encode as JSON")

// UnencodableError is the error of a value that does not encode as JSON;
// Detail says why, as in "unsupported value: NaN". It matches
// ErrUnencodable with errors.Is.
type UnencodableError struct{ Detail string }

func (e *UnencodableError) Error() string { return ErrUnencodable.Error() + ": " + e.Detail }

// Is reports whether target is ErrUnencodable.
func (e *UnencodableError) Is(target error) bool { return target == ErrUnencodable }

// LogOptions configures an event log. Zero values mean the defaults.
type LogOptions struct {
	MaxBytes  int64 // size of events.jsonl; default DefaultMaxEventBytes
	MaxEvents int   // number of lines; default DefaultMaxEvents
	Sync      bool  // sync the file to disk on Close
}

func (l LogOptions) withDefaults() LogOptions {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxEventBytes
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	return l
}

// EventLog is the append-only writer of events.jsonl. Each event is one
// line written with one write call, so a crash loses at most the line being
// written. It is safe for concurrent use.
type EventLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	opts    LogOptions
	reserve int64 // room kept for the diagnostic line
	bytes   int64
	count   int
	full    error // set once a cap is hit
	buf     bytes.Buffer
	sum     hash.Hash // of every byte written
}

// CreateEventLog creates path (which must not exist) for appending events.
func CreateEventLog(path string, opts LogOptions) (*EventLog, error) {
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, FilePerm)
	if err != nil {
		return nil, fmt.Errorf("record: create event log: %w", err)
	}
	l := &EventLog{f: f, path: path, opts: opts.withDefaults(), sum: sha256.New()}
	worst, _ := json.Marshal(lux.Event{Type: lux.EventError, Time: time.Now(), Error: &lux.ErrorEvent{
		ExitReason: lux.ExitError, Reason: (&TraceLimitError{Limit: int64(1) << 62, Unit: "event"}).Reason(),
	}})
	l.reserve = int64(len(worst)) + 16 // time zones can lengthen the timestamp
	return l, nil
}

// Append writes e as one line. When the line would break a cap, Append
// writes the diagnostic error line instead and returns an error wrapping
// ErrTraceLimit (a *TraceLimitError); every later Append is a no-op returning nil. After Close,
// Append writes nothing and returns an error wrapping fs.ErrClosed.
func (l *EventLog) Append(e lux.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("record: event log %s: %s event after close: %w", l.path, e.Type, fs.ErrClosed)
	}
	if l.full != nil {
		return nil
	}
	l.buf.Reset()
	if err := encode(&l.buf, e, ""); err != nil {
		return fmt.Errorf("record: event log %s: %s event: %w", l.path, e.Type, err)
	}
	line := l.buf.Bytes()
	if !utf8.Valid(line) {
		line = replaceInvalidUTF8(line)
	}
	switch {
	case l.count+1 >= l.opts.MaxEvents:
		return l.overflow(&TraceLimitError{Limit: int64(l.opts.MaxEvents), Unit: "event"})
	case l.bytes+int64(len(line))+l.reserve > l.opts.MaxBytes:
		return l.overflow(&TraceLimitError{Limit: l.opts.MaxBytes, Unit: "byte"})
	}
	return l.write(line)
}

// SanitizedField is the field an event line of events.jsonl carries when
// the event held bytes that are not UTF-8 (an agent's raw payload, say):
// they were replaced, so that the file stays valid JSON text for every
// reader, and the line says so.
const SanitizedField = "sanitized"

// sanitizedNote is the value of SanitizedField.
const sanitizedNote = "invalid UTF-8 replaced with U+FFFD"

// replaceInvalidUTF8 returns the JSON object line with every byte that is
// not part of valid UTF-8 written as the escape \ufffd (such bytes only
// occur inside strings, where the escape is valid), and SanitizedField
// added as its first field.
func replaceInvalidUTF8(line []byte) []byte {
	out := make([]byte, 0, len(line)+64)
	out = append(out, '{')
	out = append(out, `"`+SanitizedField+`":"`+sanitizedNote+`",`...)
	rest := line[1:] // past the object's '{'
	for len(rest) > 0 {
		r, n := utf8.DecodeRune(rest)
		if r == utf8.RuneError && n <= 1 {
			out = append(out, `\ufffd`...)
			rest = rest[1:]
			continue
		}
		out = append(out, rest[:n]...)
		rest = rest[n:]
	}
	return out
}

func (l *EventLog) write(line []byte) error {
	n, err := l.f.Write(line)
	l.sum.Write(line[:n])
	l.bytes += int64(n)
	l.count++
	if err != nil {
		return fmt.Errorf("record: event log %s: %w", l.path, err)
	}
	return nil
}

func (l *EventLog) overflow(limit *TraceLimitError) error {
	l.full = limit
	diag, _ := json.Marshal(lux.Event{Type: lux.EventError, Time: time.Now().UTC(), Error: &lux.ErrorEvent{ExitReason: lux.ExitError, Reason: limit.Reason()}})
	if err := l.write(append(diag, '\n')); err != nil {
		return err
	}
	return l.full
}

// Exceeded returns the *TraceLimitError once a cap was hit, else nil.
func (l *EventLog) Exceeded() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.full
}

// Len returns the number of lines and bytes written.
func (l *EventLog) Len() (events int, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, l.bytes
}

// Digest is the SHA-256 (hex) of the bytes this log wrote and their
// number: what events.jsonl holds unless something else wrote to it.
func (l *EventLog) Digest() (string, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return hex.EncodeToString(l.sum.Sum(nil)), l.bytes
}

// Close closes the log, syncing it first when LogOptions.Sync is set. It is safe to call more than once.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	var err error
	if l.opts.Sync {
		err = l.f.Sync()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("record: close event log %s: %w", l.path, err)
	}
	return nil
}

// ReadEvents reads an events.jsonl file. On a line that does not parse it
// returns the events before it together with an error naming the file and
// the line. A symlink is refused.
func ReadEvents(path string) ([]lux.Event, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("record: read events: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("record: read events: %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record: read events: %w", err)
	}
	defer f.Close()
	return decodeEvents(path, f)
}

func decodeEvents(path string, r io.Reader) ([]lux.Event, error) {
	var out []lux.Event
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e lux.Event
			if uerr := json.Unmarshal(line, &e); uerr != nil {
				problem := "corrupt event: " + uerr.Error()
				if err == io.EOF {
					problem = "truncated last line: " + uerr.Error()
				}
				return out, fmt.Errorf("record: %s:%d: %s", path, lineNo, problem)
			}
			out = append(out, e)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("record: read %s: %w", path, err)
		}
	}
}
