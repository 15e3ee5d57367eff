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
	"os"
)

// chunk is how much is read between two looks at the context.
const chunk = 1 << 20

// Reader returns how many bytes r held and their SHA-256 (hex), reading at
// most limit bytes (limit <= 0: no limit; a reader holding more is an
// error), and giving up with ctx's error once ctx ends.
func Reader(ctx context.Context, r io.Reader, limit int64) (int64, string, error) {
	h := sha256.New()
	buf := make([]byte, chunk)
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

// File is Reader over the file at path.
func File(ctx context.Context, path string, limit int64) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	return Reader(ctx, f, limit)
}
