package record

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// SealKeyDirOf returns the directory holding root's sealing key: the path
// a sandbox must deny to every agent (neither read nor write).
func SealKeyDirOf(root string) string { return filepath.Join(root, SealKeyDir) }

// SealKeyPath returns the path of root's sealing key file.
func SealKeyPath(root string) string { return filepath.Join(root, SealKeyDir, SealKeyFile) }

// SealKey is a runs root's secret: 32 random bytes, in a 0600 file of a
// 0700 directory of the root, created with the root's first sealed record.
type SealKey struct {
	Path    string
	ID      string    // the first 16 hex digits of the key's SHA-256: names the key, never reveals it
	Created time.Time // records whose directory name is later must be sealed
	secret  []byte
}

type keyFile struct {
	SchemaVersion int       `json:"schemaVersion"`
	Created       time.Time `json:"created"`
	Key           string    `json:"key"`
}

// OpenSealKey returns root's sealing key, creating it when root has none.
// Two processes creating it at once get the same key.
func OpenSealKey(root string) (*SealKey, error) {
	path := SealKeyPath(root)
	if k, err := readSealKey(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(path), DirPerm); err != nil {
		return nil, fmt.Errorf("record: create the sealing key: %w", err)
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("record: create the sealing key: %w", err)
	}
	var buf bytes.Buffer
	if err := encode(&buf, keyFile{SchemaVersion: 1, Created: time.Now().UTC(), Key: hex.EncodeToString(secret)}, "  "); err != nil {
		return nil, fmt.Errorf("record: create the sealing key: %w", err)
	}
	tmp, err := (Writer{Sync: true}).writeTemp(path, buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("record: create the sealing key %s: %w", path, err)
	}
	defer os.Remove(tmp)
	// A link never replaces a key another process made first.
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("record: create the sealing key %s: %w", path, err)
	}
	return readSealKey(path)
}

func readSealKey(path string) (*SealKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s: %v (only the user who records the runs can read it; check its owner and mode 0600)", ErrSealKey, path, pathProblem(err))
	}
	var kf keyFile
	secret, herr := []byte(nil), error(nil)
	if err := json.Unmarshal(data, &kf); err == nil {
		secret, herr = hex.DecodeString(kf.Key)
	}
	if err != nil || herr != nil || len(secret) < 32 {
		return nil, fmt.Errorf("%w: %s is not a sealing key (it must hold the 32-byte key lux wrote; a key that was lost cannot be remade, and the records it sealed cannot be verified)", ErrSealKey, path)
	}
	sum := sha256.Sum256(secret)
	return &SealKey{Path: path, ID: hex.EncodeToString(sum[:8]), Created: kf.Created, secret: secret}, nil
}

// findSealKey returns the key of the runs root dir is recorded in: the
// first of dir and its parents holding a key (a run directory is
// <root>/<case>/<driver>/<time>, where a case id with slashes adds
// levels; a suite is <root>/.suites/<time>); nil when none has one.
func findSealKey(dir string) (*SealKey, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", fmt.Errorf("record: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		path := SealKeyPath(d)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			if filepath.Dir(d) == d {
				break
			}
			continue
		}
		k, err := readSealKey(path)
		return k, path, err
	}
	return nil, "", nil
}

// FindSealKey returns the key of the runs root the record directory dir
// is in (dir, or its nearest parent holding one), nil when it has none.
func FindSealKey(dir string) (*SealKey, error) {
	k, _, err := findSealKey(dir)
	return k, err
}

// stampTime is the time a Timestamp names.
func stampTime(stamp string) (time.Time, error) {
	if len(stamp) != len("2006-01-02T15-04-05-000Z") {
		return time.Time{}, fmt.Errorf("%q is not a timestamp", stamp)
	}
	t, err := time.Parse("2006-01-02T15-04-05", stamp[:19])
	if err != nil {
		return time.Time{}, err
	}
	ms, err := strconv.Atoi(stamp[20:23])
	if err != nil {
		return time.Time{}, err
	}
	return t.Add(time.Duration(ms) * time.Millisecond), nil
}
