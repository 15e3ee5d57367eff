package record

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Writer writes the JSON files of records atomically: a temporary file in
// the same directory (mode 0600) renamed over the target, so that a reader,
// or a crash of the writing process, sees either the old file or the new
// one, never a mix. With Sync the temporary file is also synced before the
// rename, so the new content survives an operating-system crash or power
// loss too; that costs a disk flush per file (milliseconds on most disks).
type Writer struct {
	Sync bool
}

// WriteJSON writes v to path with Writer{Sync: true}.
func WriteJSON(path string, v any) error { return Writer{Sync: true}.WriteJSON(path, v) }

// WriteFileAtomic writes data to path with Writer{Sync: true}.
func WriteFileAtomic(path string, data []byte) error {
	return Writer{Sync: true}.WriteFile(path, data)
}

// WriteJSON writes v to path as indented JSON followed by a newline. A v
// that does not encode is an error wrapping ErrUnencodable, and path is
// left as it was.
func (w Writer) WriteJSON(path string, v any) error {
	var buf bytes.Buffer
	if err := encode(&buf, v, "  "); err != nil {
		return fmt.Errorf("record: encode %s: %w", path, err)
	}
	return w.WriteFile(path, buf.Bytes())
}

// encode writes v as JSON and a newline to buf, HTML characters as they
// are; an error (or a panic of a MarshalJSON method) wraps ErrUnencodable.
func encode(buf *bytes.Buffer, v any, indent string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic: %v", ErrUnencodable, p)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		// Name the value that failed, not each MarshalJSON on the way.
		cause := err
		for {
			var me *json.MarshalerError
			if !errors.As(cause, &me) || me.Err == nil {
				break
			}
			cause = me.Err
		}
		return fmt.Errorf("%w: %s", ErrUnencodable, strings.TrimPrefix(cause.Error(), "json: "))
	}
	return nil
}

// WriteFile replaces path with data.
func (w Writer) WriteFile(path string, data []byte) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	if werr == nil && w.Sync {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("record: write %s: %w", path, werr)
	}
	return nil
}
