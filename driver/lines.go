package driver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// NewLineReader reads lines from r of at most max bytes each (without the
// line ending); max <= 0 means DefaultMaxLineBytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
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
	for {
		chunk, err := l.r.ReadSlice('\n')
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
