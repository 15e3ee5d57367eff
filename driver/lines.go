package driver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxLineBytes is the longest line a LineReader accepts when given
// no cap: 10,000,000 bytes.
const DefaultMaxLineBytes = 10_000_000

// ErrLineTooLong reports a line longer than a LineReader's cap.
var ErrLineTooLong = errors.New("driver: line too long")

// LineReader reads newline-terminated lines with a cap on one line's bytes,
// so that an agent cannot make the harness buffer without bound.
type LineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	err error // the error to return after a last line without a newline
}

// errReleased is ReadLine's error after Release.
var errReleased = errors.New("driver: line reader released")

// readers are the read buffers of released LineReaders, for new ones: a
// session would otherwise allocate one per run for a few short lines.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// NewLineReader reads lines from r of at most max bytes each (without the
// line ending); max <= 0 means DefaultMaxLineBytes. Release it once done
// to let a later reader reuse its buffer.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &LineReader{r: br, max: max}
}

// Release gives the reader's buffer back for later readers. The reader
// must not be used afterwards: ReadLine then returns an error, and the
// last line it returned is no longer valid. Safe to call more than once.
func (l *LineReader) Release() {
	if l.r == nil {
		return
	}
	l.r.Reset(nil)
	readers.Put(l.r)
	l.r, l.buf, l.err = nil, nil, errReleased
}

// Max is the cap on one line's bytes.
func (l *LineReader) Max() int { return l.max }

// ReadLine returns the next line without its "\n" or "\r\n". The slice is
// valid until the next call. A last line without a newline is returned
// before io.EOF. A line (or the unfinished part of one) longer than the
// cap returns an error wrapping ErrLineTooLong, after which the reader
// must not be used.
func (l *LineReader) ReadLine() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	l.buf = l.buf[:0]
	for first := true; ; first = false {
		chunk, err := l.r.ReadSlice('\n')
		if first && err == nil {
			// A whole line in the buffer: no copy.
			line := bytes.TrimSuffix(chunk[:len(chunk)-1], []byte("\r"))
			if len(line) > l.max {
				l.err = fmt.Errorf("%w: line exceeded %d bytes", ErrLineTooLong, l.max)
				return nil, l.err
			}
			return line, nil
		}
		l.buf = append(l.buf, chunk...)
		line := bytes.TrimSuffix(l.buf, []byte("\n"))
		if len(bytes.TrimSuffix(line, []byte("\r"))) > l.max {
			l.err = fmt.Errorf("%w: line exceeded %d bytes", ErrLineTooLong, l.max)
			return nil, l.err
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(l.buf) > 0:
			// The last line has no newline: return it now, the error next time.
			l.err = err
			return bytes.TrimSuffix(line, []byte("\r")), nil
		default:
			return nil, err
		}
	}
}
