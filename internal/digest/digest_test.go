package digest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	for _, size := range []int{0, 6, chunk - 1, chunk, 3*chunk + 7} {
		data := bytes.Repeat([]byte("x"), size)
		want := sha256.Sum256(data)
		n, sum, err := Reader(context.Background(), bytes.NewReader(data), 0)
		if err != nil || n != int64(size) || sum != hex.EncodeToString(want[:]) {
			t.Errorf("size %d: got %d, %s, %v", size, n, sum, err)
		}
	}
	if _, _, err := Reader(context.Background(), strings.NewReader("hello"), 4); err == nil {
		t.Error("a reader over the limit is not an error")
	}
	if n, _, err := Reader(context.Background(), strings.NewReader("hello"), 5); err != nil || n != 5 {
		t.Errorf("a reader at the limit: %d, %v", n, err)
	}
}

// Hashing a small file, as every run does for each artifact, allocates
// far less than a chunk: the buffer is reused, not made for each call.
func TestReaderOfSmallInputAllocatesLittle(t *testing.T) {
	const calls = 100
	var before, after runtime.MemStats
	_, _, _ = Reader(context.Background(), strings.NewReader("warm up"), 0)
	runtime.ReadMemStats(&before)
	for range calls {
		if _, _, err := Reader(context.Background(), strings.NewReader("hello\n"), 0); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perCall := (after.TotalAlloc - before.TotalAlloc) / calls; perCall > 4<<10 {
		t.Errorf("hashing 6 bytes allocates %d bytes a call", perCall)
	}
}

// shortLen is a reader that says it holds fewer bytes than it does, as a
// file that grew after it was looked at would.
type shortLen struct{ *strings.Reader }

func (shortLen) Len() int { return 1 }

func TestReaderHoldingMoreThanItSaid(t *testing.T) {
	data := strings.Repeat("y", 5000)
	want := sha256.Sum256([]byte(data))
	n, sum, err := Reader(context.Background(), shortLen{strings.NewReader(data)}, 0)
	if err != nil || n != 5000 || sum != hex.EncodeToString(want[:]) {
		t.Errorf("got %d, %s, %v", n, sum, err)
	}
}
