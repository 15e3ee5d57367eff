// Package digest hashes what the harness records (artifacts, event logs)
// in chunks, so a hash of a large file can be cut short by a context.
package digest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// chunk is how much is read between two looks at the context.
const chunk = 1 << 20

// Reader returns how many bytes r held and their SHA-256 (hex), reading at
// most limit bytes (limit <= 0: no limit; a reader holding more is an
// error), and giving up with ctx's error once ctx ends.
func Reader(ctx context.Context, r io.Reader, limit int64) (int64, string, error) {
	h := sha256.New()
	buf := buffer(r, limit)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, "", err
		}
		want := int64(len(buf))
		if limit > 0 && limit-n+1 < want {
			want = limit - n + 1 // one byte more tells a reader that holds more
		}
		k, err := r.Read(buf[:want])
		h.Write(buf[:k])
		n += int64(k)
		if limit > 0 && n > limit {
			return n, "", fmt.Errorf("digest: more than %d bytes", limit)
		}
		if errors.Is(err, io.EOF) {
			return n, hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return n, "", err
		}
	}
}

// buffer is a read buffer for r: a chunk, or less when r says it holds
// less (a regular file's size, a reader's Len) or limit allows less. Every
// run hashes its artifacts, most of them small, and a chunk for each was
// most of what a run allocated. A reader holding more than it said is
// still read whole, in more reads.
func buffer(r io.Reader, limit int64) []byte {
	n := int64(chunk)
	if limit > 0 {
		n = min(n, limit+1)
	}
	switch s := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			n = min(n, fi.Size()+1)
		}
	case interface{ Len() int }:
		n = min(n, int64(s.Len())+1)
	}
	return make([]byte, max(n, 512))
}

// File is Reader over the file at path.
func File(ctx context.Context, path string, limit int64) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	return Reader(ctx, f, limit)
}
