package driver_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux/driver"
)

func TestLineReader(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		max     int
		want    []string
		wantErr error
	}{
		{name: "lines", input: "a\nbb\n\nccc\n", max: 10, want: []string{"a", "bb", "", "ccc"}, wantErr: io.EOF},
		{name: "crlf", input: "a\r\nb\r\n", max: 10, want: []string{"a", "b"}, wantErr: io.EOF},
		{name: "last line without newline", input: "a\nb", max: 10, want: []string{"a", "b"}, wantErr: io.EOF},
		{name: "exactly the cap", input: "12345\n", max: 5, want: []string{"12345"}, wantErr: io.EOF},
		{name: "over the cap", input: "ok\n123456\nnever\n", max: 5, want: []string{"ok"}, wantErr: driver.ErrLineTooLong},
		{name: "unfinished line over the cap", input: "123456", max: 5, wantErr: driver.ErrLineTooLong},
		{name: "line longer than the buffer", input: strings.Repeat("x", 200_000) + "\n", max: 300_000,
			want: []string{strings.Repeat("x", 200_000)}, wantErr: io.EOF},
		{name: "long line over the cap", input: strings.Repeat("x", 200_000) + "\n", max: 100_000, wantErr: driver.ErrLineTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := driver.NewLineReader(iotest.OneByteReader(strings.NewReader(tt.input)), tt.max)
			if len(tt.input) > 1000 {
				lr = driver.NewLineReader(strings.NewReader(tt.input), tt.max)
			}
			var got []string
			var err error
			for {
				var line []byte
				line, err = lr.ReadLine()
				if err != nil {
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			require.True(t, errors.Is(err, tt.wantErr), "error %v, want %v", err, tt.wantErr)
			_, again := lr.ReadLine()
			require.True(t, errors.Is(again, tt.wantErr), "error after the end %v", again)
		})
	}
}

// TestLineReaderReusesItsBuffer: a released LineReader gives its read
// buffer to the next one, so a session reading a few short lines does not
// allocate a buffer of its own; and a released reader reads nothing more.
func TestLineReaderReusesItsBuffer(t *testing.T) {
	read := func() {
		lr := driver.NewLineReader(strings.NewReader("{\"type\":\"ready\"}\n{\"type\":\"done\"}\n"), 0)
		for {
			if _, err := lr.ReadLine(); err != nil {
				break
			}
		}
		lr.Release()
	}
	read()
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			read()
		}
	})
	// Without reuse each reader costs its 64 KiB buffer. (The race
	// detector drops a quarter of what is put back in a pool.)
	if got := res.AllocedBytesPerOp(); got > 24<<10 {
		t.Errorf("a LineReader reading two short lines allocates %d bytes, want under 24 KiB", got)
	}
	lr := driver.NewLineReader(strings.NewReader("a\n"), 0)
	lr.Release()
	if line, err := lr.ReadLine(); err == nil {
		t.Errorf("ReadLine after Release = %q, nil; want an error", line)
	}
}
