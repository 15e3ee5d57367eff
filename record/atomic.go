package record

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/internal/jsonerr"
)

// Writer writes the JSON files of records atomically: a temporary file in
// the same directory (mode 0600) renamed over the target, so that a reader,
// or a crash of the writing process, sees either the old file or the new
// one, never a mix. With Sync the temporary file is also synced before the
// rename and the directory after it, so the new content and its name
// survive an operating-system crash or power loss too; that costs disk
// flushes per file (milliseconds on most disks).
type Writer struct {
	Sync bool
	// Perm is the permission of the files written, before the umask; 0
	// means FilePerm (records are private). A file meant to be shared (a
	// report page) is written 0o644.
	Perm fs.FileMode
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

// WriteJSONSum is WriteJSON that also returns the SHA-256 (hex) of the
// bytes written, for sealing what the harness wrote rather than what the
// file holds later (see NewRun).
func (w Writer) WriteJSONSum(path string, v any) (string, error) {
	return writeJSONSum(path, v, w.WriteFile)
}

// writeJSONSum encodes v as indented JSON, writes it to path with write
// and returns the SHA-256 (hex) of the bytes written.
func writeJSONSum(path string, v any, write func(string, []byte) error) (string, error) {
	var buf bytes.Buffer
	if err := encode(&buf, v, "  "); err != nil {
		return "", fmt.Errorf("record: encode %s: %w", path, err)
	}
	if err := write(path, buf.Bytes()); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// CreateJSONSum is WriteJSONSum for a file of a record that no reader
// reads before the record is committed (a run's case.json, artifacts.json
// and grading.json, read only once its run.json names the run complete):
// when path does not exist yet it is created and written in place, with no
// temporary file and no rename; a crash while writing it leaves a record
// that is never read as complete (run.json, written last and atomically,
// is missing or older). When path exists (something else put it there) it
// is replaced as WriteFile does. With Sync the file is synced; its name
// becomes durable with the directory sync of the record's next WriteFile.
func (w Writer) CreateJSONSum(path string, v any) (string, error) {
	return writeJSONSum(path, v, w.CreateFile)
}

// CreateFile writes data to path as CreateJSONSum does: in place when path
// is free, otherwise replacing it atomically.
func (w Writer) CreateFile(path string, data []byte) error {
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, w.perm()) // O_EXCL: never through a link
	if errors.Is(err, fs.ErrExist) {
		return w.WriteFile(path, data)
	}
	if err != nil {
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil && w.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	return nil
}

func (w Writer) perm() fs.FileMode {
	if w.Perm == 0 {
		return FilePerm
	}
	return w.Perm
}

// encode writes v as JSON and a newline to buf, HTML characters as they
// are; an error (or a panic of a MarshalJSON method) is an *UnencodableError,
// and an error writing to buf is returned as it is.
func encode(buf io.Writer, v any, indent string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &UnencodableError{Detail: fmt.Sprintf("panic: %v", p)}
		}
	}()
	if st, ok := v.(streamer); ok && indent == "  " {
		if err := st.streamJSON(buf); err != nil {
			if ew, ok := buf.(*errWriter); ok && ew.err != nil {
				return ew.err
			}
			return &UnencodableError{Detail: jsonerr.Of(err).Text}
		}
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		if ew, ok := buf.(*errWriter); ok && ew.err != nil {
			return ew.err // the file, not the value
		}
		// jsonerr names the value that failed, not each MarshalJSON on the way.
		return &UnencodableError{Detail: jsonerr.Of(err).Text}
	}
	return nil
}

// WriteFile replaces path with data.
func (w Writer) WriteFile(path string, data []byte) error {
	tmp, err := w.writeTemp(path, data)
	if err != nil {
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	return w.commitTemp(tmp, path)
}

// commitTemp renames the complete temporary file tmp over path (syncing
// the directory when w.Sync); on error tmp is removed.
func (w Writer) commitTemp(tmp, path string) error {
	err := os.Rename(tmp, path)
	if err != nil {
		_ = os.Remove(tmp)
	} else if w.Sync {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	return nil
}

// encodeTemp writes v, encoded as WriteJSON does, to a new temporary file
// next to path (synced when w.Sync) without holding the encoding in memory
// a second time, and returns its name and the SHA-256 (hex) of its bytes.
// On error nothing is left.
func (w Writer) encodeTemp(path string, v any) (tmp, sum string, err error) {
	f, tmp, err := w.createTemp(path)
	if err != nil {
		return "", "", fmt.Errorf("record: write %s: %w", path, err)
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 32<<10)
	ew := &errWriter{w: bw}
	err = encode(ew, v, "  ")
	var bad *UnencodableError
	if errors.As(err, &bad) {
		err = fmt.Errorf("record: encode %s: %w", path, err)
	} else if err == nil {
		err = bw.Flush()
	}
	if err == nil && w.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		if bad == nil {
			err = fmt.Errorf("record: write %s: %w", path, err)
		}
		return "", "", err
	}
	return tmp, hex.EncodeToString(h.Sum(nil)), nil
}

// syncDir flushes a directory, so that a rename in it survives a crash of
// the operating system as well as the file's content does.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// createTemp creates a new temporary file next to path and returns it and
// its name.
func (w Writer) createTemp(path string) (*os.File, string, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, w.perm())
	return f, tmp, err
}

// writeTemp writes data to a new temporary file next to path (synced when
// w.Sync) and returns its name; on error nothing is left.
func (w Writer) writeTemp(path string, data []byte) (string, error) {
	f, tmp, err := w.createTemp(path)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil && w.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// publish gives the complete file tmp the first free name that name(1),
// name(2), ... returns, never replacing a file, and returns it. The name
// appears with its whole content (a hard link), so a crash never leaves it
// empty or half-written.
func publish(tmp string, name func(n int) string) (string, error) {
	defer os.Remove(tmp)
	for n := 1; n < 10000; n++ {
		path := name(n)
		err := os.Link(tmp, path)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links here: reserve the name, then rename over it.
		f, rerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FilePerm)
		if errors.Is(rerr, fs.ErrExist) {
			continue
		}
		if rerr != nil {
			return "", err
		}
		f.Close()
		if err := os.Rename(tmp, path); err != nil {
			_ = os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", errors.New("no free name")
}

// errWriter keeps the first error of writing to w, telling a file that
// cannot be written from a value that cannot be encoded.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
