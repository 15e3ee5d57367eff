package record

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Default caps of a stderr log.
const (
	DefaultMaxStderrBytes = 1 << 20 // 1 MiB
	stderrTailBytes       = 4 << 10
)

// StderrLog is an io.Writer keeping the agent's standard error in
// stderr.log up to a cap (later output is dropped after one marker line)
// and its last few KiB in memory for run.json. The file is created on the
// first write: an agent that writes nothing to stderr leaves none. It is
// safe for concurrent use; writes never fail, so an agent is never blocked
// by its log.
type StderrLog struct {
	mu      sync.Mutex
	f       *os.File
	closed  bool
	path    string
	max     int64
	written int64
	dropped int64
	tail    []byte
	err     error
}

// NewStderrLog returns a log that will create path (which must not exist)
// on its first write; maxBytes <= 0 means DefaultMaxStderrBytes.
func NewStderrLog(path string, maxBytes int64) *StderrLog {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxStderrBytes
	}
	return &StderrLog{path: path, max: maxBytes}
}

// Write keeps p; it always reports success.
func (s *StderrLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepTail(p)
	if s.f == nil && !s.closed && s.err == nil {
		s.f, s.err = openFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, FilePerm)
	}
	if s.f == nil {
		s.dropped += int64(len(p))
		return len(p), nil
	}
	room := s.max - s.written
	chunk := p
	if int64(len(chunk)) > room {
		chunk = chunk[:max(room, 0)]
	}
	if len(chunk) > 0 && s.err == nil {
		n, err := s.f.Write(chunk)
		s.written += int64(n)
		if err != nil {
			s.err = err
		}
	}
	if extra := int64(len(p) - len(chunk)); extra > 0 {
		if s.dropped == 0 && s.err == nil {
			_, _ = s.f.WriteString("\n[lux: stderr exceeded the " + strconv.FormatInt(s.max, 10) + "-byte limit; the rest is dropped]\n")
		}
		s.dropped += extra
	}
	return len(p), nil
}

func (s *StderrLog) keepTail(p []byte) {
	if len(p) >= stderrTailBytes {
		s.tail = append(s.tail[:0], p[len(p)-stderrTailBytes:]...)
		return
	}
	if over := len(s.tail) + len(p) - stderrTailBytes; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.tail = append(s.tail, p...)
}

// Tail returns the last few KiB written.
func (s *StderrLog) Tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.ToValidUTF8(string(s.tail), "")
}

// Dropped returns how many bytes did not fit under the cap.
func (s *StderrLog) Dropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Close closes the file; later writes only update the tail. It is safe to
// call more than once.
func (s *StderrLog) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.f != nil {
		err = s.f.Close()
		s.f = nil
	}
	if err == nil {
		err = s.err
	}
	if err != nil {
		return fmt.Errorf("record: stderr log %s: %w", s.path, err)
	}
	return nil
}
