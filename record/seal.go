package record

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The sealing key of a runs root and the seal of a record.
const (
	// SealKeyDir, directly under the runs root, holds the root's sealing
	// key. Agents must never read it: a sandbox denies the directory
	// SealKeyDirOf names.
	SealKeyDir = ".lux-seal"
	// SealKeyFile is the key's file in SealKeyDir.
	SealKeyFile = "key"
	// SealFile is the seal of a run or suite directory.
	SealFile = "seal.json"
)

// SealState says what the seal of a record directory showed.
type SealState string

// The seal states of a record read back.
const (
	SealVerified SealState = "verified" // sealed, and every sealed file is as sealed
	SealUnsealed SealState = "unsealed" // written before sealing existed: nothing to verify
)

// ErrSealBroken reports a record whose files are not those its seal
// names: a record changed after the harness wrote it. It is not read. It
// is also an ErrEvidenceChanged (errors.Is).
var ErrSealBroken error = sealBroken{}

type sealBroken struct{}

func (sealBroken) Error() string        { return "record: the record changed since it was sealed" }
func (sealBroken) Is(target error) bool { return target == ErrEvidenceChanged }

// ErrSealKey reports a sealed record whose runs root's key is missing,
// unreadable or another one: its seal cannot be checked, so it is not read.
var ErrSealKey = errors.New("record: the sealing key cannot be used")

// Seal is seal.json: the SHA-256 of each file of a record directory, and
// an HMAC-SHA256 of them under the runs root's key.
type Seal struct {
	SchemaVersion int               `json:"schemaVersion"`
	Algorithm     string            `json:"algorithm"` // "HMAC-SHA256"
	KeyID         string            `json:"keyId"`
	Kind          string            `json:"kind"` // "run" or "suite"
	Files         map[string]string `json:"files"`
	// Pending are files being rewritten by the harness: each may hold its
	// sealed content (or be absent, when Files has none) or the pending
	// one, so that a crash between writing a file and sealing it leaves a
	// record that still verifies.
	Pending map[string]string `json:"pending,omitempty"`
	MAC     string            `json:"mac"`
}

// sealedNames lists the files of dir a seal covers, by kind: a run's
// record files and its later gradings, a suite's two files.
func sealedNames(dir, kind string) ([]string, error) {
	var names []string
	if kind == "suite" {
		names = []string{SuiteFile, SuiteSummaryFile}
	} else {
		names = []string{CaseFile, MetadataFile, EventsFile, GradingFile, ArtifactsFile, StderrFile}
		entries, err := os.ReadDir(filepath.Join(dir, GradingsDir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("record: %w", err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
				names = append(names, GradingsDir+"/"+e.Name())
			}
		}
	}
	return names, nil
}

// hashFiles returns the SHA-256 of each of names present in dir.
func hashFiles(dir string, names []string) (map[string]string, error) {
	return hashFilesKnown(dir, names, nil)
}

// hashFilesKnown is hashFiles that takes the sum of a name in known
// without reading the file, when it is there as a regular file.
func hashFilesKnown(dir string, names []string, known map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		path := filepath.Join(dir, filepath.FromSlash(n))
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &FileError{Path: path, Err: pathProblem(err)}
		}
		if !fi.Mode().IsRegular() {
			out[n] = "not a regular file"
			continue
		}
		if sum, ok := known[n]; ok {
			out[n] = sum
			continue
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, &FileError{Path: path, Err: pathProblem(err)}
		}
		out[n] = sum
	}
	return out, nil
}

func (k *SealKey) mac(s *Seal) string {
	m := hmac.New(sha256.New, k.secret)
	fmt.Fprintf(m, "lux-seal/v1\n%s\n", s.Kind)
	writeSums(m, s.Files)
	if len(s.Pending) > 0 {
		fmt.Fprintf(m, "pending\n")
		writeSums(m, s.Pending)
	}
	return hex.EncodeToString(m.Sum(nil))
}

func writeSums(w io.Writer, sums map[string]string) {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "%q %s\n", n, sums[n])
	}
}

// NewRun describes a run's record as the harness wrote it, for sealing it
// the first time: what the agent could have written into the directory
// while it ran is not taken on trust.
type NewRun struct {
	// Events is the event log the harness wrote: its digest is sealed,
	// not the file's, so lines appended behind the harness's back leave a
	// file that does not match its seal.
	Events *EventLog
	// Written holds the SHA-256 of the files the harness wrote, as it
	// wrote them (Writer.WriteJSONSum): those are sealed, not the files'
	// content at sealing time.
	Written map[string]string
}

// SealRun writes dir's first seal.json: the SHA-256 of each of its record
// files, under key (kind "run" or "suite"), taking from n (when not nil)
// what the harness knows of them: the events' digest as logged, the JSON
// files as written, and no later gradings (a gradings/ file present then
// was not written by lux, and is left out of the seal, so readers refuse
// it). A file rewritten later goes through WriteSealed.
func (w Writer) SealRun(dir, kind string, key *SealKey, n *NewRun) error {
	names, err := sealedNames(dir, kind)
	if err != nil {
		return err
	}
	if n != nil {
		names = slices.DeleteFunc(names, func(name string) bool { return strings.HasPrefix(name, GradingsDir+"/") })
	}
	// What the harness wrote is sealed as it wrote it, without reading
	// the files back: only whether each is there, as a file, is looked at.
	var known map[string]string
	var events string
	var eventBytes int64
	if n != nil {
		known = maps.Clone(n.Written)
		if n.Events != nil {
			events, eventBytes = n.Events.Digest()
			if known == nil {
				known = map[string]string{}
			}
			known[EventsFile] = events
		}
	}
	files, err := hashFilesKnown(dir, names, known)
	if err != nil {
		return err
	}
	if eventBytes > 0 {
		if _, ok := files[EventsFile]; !ok {
			files[EventsFile] = events // logged, and removed since: refused
		}
	}
	return w.writeSeal(dir, key, &Seal{Kind: kind, Files: files})
}

func (w Writer) writeSeal(dir string, key *SealKey, s *Seal) error {
	s.SchemaVersion, s.Algorithm, s.KeyID = 1, "HMAC-SHA256", key.ID
	s.MAC = key.mac(s)
	return w.WriteJSON(filepath.Join(dir, SealFile), s)
}

// WriteSealed replaces the file name of the sealed record directory dir
// with data and seals it, so that no crash leaves a record that does not
// verify: the seal first allows data as name's pending content, then the
// file is written, then the seal names data alone. The other files keep
// the sums of dir's current seal (they are not re-read: what changed
// behind the harness's back stays refused); a directory not yet sealed is
// sealed as it is.
func (w Writer) WriteSealed(dir, kind string, key *SealKey, name string, data []byte) error {
	base, err := w.sealBase(dir, kind, key, name)
	if err != nil {
		return err
	}
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])
	if err := w.writeSeal(dir, key, &Seal{Kind: kind, Files: base, Pending: map[string]string{name: sum}}); err != nil {
		return err
	}
	if err := w.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data); err != nil {
		return err
	}
	base[name] = sum
	return w.writeSeal(dir, key, &Seal{Kind: kind, Files: base})
}

// WriteJSONSealed is WriteSealed of v encoded as WriteJSON does. The JSON
// goes straight to a temporary file, hashed on the way (a suite's summary
// is large: it is not held in memory a second time); the seal allows it as
// pending before the file takes name, so the crash states are WriteSealed's.
func (w Writer) WriteJSONSealed(dir, kind string, key *SealKey, name string, v any) error {
	base, err := w.sealBase(dir, kind, key, name)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, filepath.FromSlash(name))
	tmp, sum, err := w.encodeTemp(path, v)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // gone once renamed
	if err := w.writeSeal(dir, key, &Seal{Kind: kind, Files: base, Pending: map[string]string{name: sum}}); err != nil {
		return err
	}
	if err := w.commitTemp(tmp, path); err != nil {
		return err
	}
	base[name] = sum
	return w.writeSeal(dir, key, &Seal{Kind: kind, Files: base})
}

// sealBase returns the sums a new seal of dir starts from: its current
// seal's (checked), or for a directory not yet sealed, its files as they
// are, but name.
func (w Writer) sealBase(dir, kind string, key *SealKey, name string) (map[string]string, error) {
	var old Seal
	ok, err := readJSONOptional(filepath.Join(dir, SealFile), &old)
	if err != nil {
		return nil, err
	}
	if ok {
		if old.KeyID != key.ID || !hmac.Equal([]byte(key.mac(&old)), []byte(old.MAC)) {
			return nil, (&sealCheck{dir: dir}).broken(SealFile, "does not match its own seal (the seal was rewritten without the key)")
		}
		base := maps.Clone(old.Files)
		if base == nil {
			base = map[string]string{}
		}
		for n, sum := range old.Pending {
			// A write that a crash cut short: the file holds one of the two.
			if cur, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(n))); err == nil && cur == sum {
				base[n] = sum
			}
		}
		return base, nil
	}
	names, err := sealedNames(dir, kind)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == name })
	return hashFiles(dir, names)
}

// VerifySeal checks every file of the record directory dir against its
// seal: SealVerified, or SealUnsealed for a record made before sealing
// existed. A record that changed since it was sealed is an error wrapping
// ErrSealBroken naming the file; a key that is missing or another is an
// error wrapping ErrSealKey. The readers of this package (ReadMetadata,
// ReadRun, ReadSuite, ReadRegradings, LoadEvents) check the files they read
// the same way.
func VerifySeal(dir string) (SealState, error) {
	sc, err := openSeal(dir)
	if err != nil {
		return "", err
	}
	if sc.seal == nil {
		var complete *bool
		var m struct {
			Evidence json.RawMessage `json:"evidence"`
		}
		if ok, err := readJSONOptional(filepath.Join(dir, MetadataFile), &m); err == nil && ok {
			done := len(m.Evidence) > 0 && string(m.Evidence) != "null"
			complete = &done
		}
		if err := sc.unsealedErr(complete); err != nil {
			return "", err
		}
		return SealUnsealed, nil
	}
	names, err := sealedNames(dir, sc.seal.Kind)
	if err != nil {
		return "", err
	}
	files, err := hashFiles(dir, names)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if err := sc.checkSum(n, files[n]); err != nil {
			return "", err
		}
	}
	var id struct {
		RunID   string `json:"runId"`
		SuiteID string `json:"suiteId"`
	}
	switch sc.seal.Kind {
	case "suite":
		if _, err := readJSONOptional(filepath.Join(dir, SuiteFile), &id); err == nil {
			if err := checkPlace(dir, "suite", id.SuiteID); err != nil {
				return "", err
			}
		}
	default:
		if _, err := readJSONOptional(filepath.Join(dir, MetadataFile), &id); err == nil {
			if err := checkPlace(dir, "run", id.RunID); err != nil {
				return "", err
			}
		}
	}
	return SealVerified, nil
}

// AttemptsDir is the directory of a run's record holding the records of
// its earlier attempts (a retried run), one directory per attempt:
// attempts/1, ...
const AttemptsDir = "attempts"

// checkPlace refuses a sealed record read in another directory than the
// one it was sealed for: a run's run.json names its run by its path under
// the runs root (RunID), a suite's suite.json by its directory's name
// (SuiteID). A record copied over another, every file as sealed, would
// otherwise read as the other. A runs root moved or copied whole keeps
// them.
func checkPlace(dir, kind, id string) error {
	if id == "" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	abs = filepath.ToSlash(filepath.Clean(abs))
	var ok bool
	switch kind {
	case "suite":
		ok = path.Base(abs) == id
	default:
		ok = abs == id || strings.HasSuffix(abs, "/"+strings.TrimPrefix(id, "/"))
		if !ok && path.Base(path.Dir(abs)) == AttemptsDir {
			// An earlier attempt of a retried run, moved into the run's
			// attempts directory: sealed for its own directory beside the
			// run's, under the same case and driver.
			caseDriver := path.Dir(path.Dir(path.Dir(abs)))
			ok = strings.HasSuffix(caseDriver, "/"+strings.TrimPrefix(path.Dir(id), "/"))
		}
	}
	if ok {
		return nil
	}
	return fmt.Errorf("%w: %s holds the record sealed for the %s %q, not for this directory: a record moved or copied over another is not read (fix: put the record back where it was made, or run the case again)",
		ErrSealBroken, dir, kind, id)
}

// sealCheck is the verified seal of one record directory (seal nil when
// it has none), against which the files read are checked.
type sealCheck struct {
	dir  string
	seal *Seal
	key  *SealKey // the runs root's key, when it has one
}

// openSeal reads dir's seal and checks it is the runs root key's.
func openSeal(dir string) (*sealCheck, error) {
	sc := &sealCheck{dir: dir}
	key, keyPath, err := findSealKey(dir)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, dir)
	}
	sc.key = key
	var s Seal
	ok, err := readJSONOptional(filepath.Join(dir, SealFile), &s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w (its seal is unreadable: the record is not read; run the case again)", ErrSealBroken, err)
	}
	if !ok {
		return sc, nil
	}
	switch {
	case key == nil:
		return nil, fmt.Errorf("%w: %s is sealed but no key was found in its runs root (%s, looked for in every directory above it): read it inside the runs root it was recorded in, or copy that runs root whole, its %s directory with it", ErrSealKey, dir, filepath.Join("<runs root>", SealKeyDir, SealKeyFile), SealKeyDir)
	case s.KeyID != key.ID:
		return nil, fmt.Errorf("%w: %s was sealed with key %s, but its runs root's key %s is %s: the key was replaced, or the record was moved from another runs root (read it there)", ErrSealKey, dir, s.KeyID, keyPath, key.ID)
	case !hmac.Equal([]byte(key.mac(&s)), []byte(s.MAC)):
		return nil, sc.broken(SealFile, "does not match its own seal (the seal was rewritten without the key)")
	}
	sc.seal = &s
	return sc, nil
}

// broken is the error of a record whose file name is not as sealed.
func (sc *sealCheck) broken(name, what string) error {
	return fmt.Errorf("%w: %s %s; a record changed after the harness wrote it is not read (fix: restore the file from a copy, or move %s out of the runs root and run the case again)",
		ErrSealBroken, filepath.Join(sc.dir, filepath.FromSlash(name)), what, sc.dir)
}

// checkSum compares the SHA-256 of the file name (empty when absent) with
// the seal's.
func (sc *sealCheck) checkSum(name, sum string) error {
	if sc.seal == nil {
		return nil
	}
	want, sealed := sc.seal.Files[name]
	if pending, ok := sc.seal.Pending[name]; ok && sum == pending {
		return nil // a write the harness began and a crash may have cut short
	}
	switch {
	case !sealed && sum == "":
		return nil
	case !sealed:
		return sc.broken(name, "was added")
	case sum == "":
		return sc.broken(name, "was removed")
	case sum != want:
		return sc.broken(name, fmt.Sprintf("changed (SHA-256 %s; %s was sealed)", sum, want))
	}
	return nil
}

// check compares data, the content of the file name as read (present
// false when it is absent), with the seal.
func (sc *sealCheck) check(name string, data []byte, present bool) error {
	if sc == nil || sc.seal == nil {
		return nil
	}
	sum := ""
	if present {
		h := sha256.Sum256(data)
		sum = hex.EncodeToString(h[:])
	}
	return sc.checkSum(name, sum)
}

// unsealedErr refuses an unsealed record that must have been sealed: one
// in a runs root whose key is older than the record (by its directory's
// name) and that is complete (complete says so; nil: judge by the name
// alone). A record written before sealing existed is read, as unsealed.
func (sc *sealCheck) unsealedErr(complete *bool) error {
	if sc.seal != nil || sc.key == nil || (complete != nil && !*complete) {
		return nil
	}
	stamp, _, ok := splitStamp(filepath.Base(sc.dir))
	if !ok {
		return nil
	}
	t, err := stampTime(stamp)
	if err != nil || t.Before(sc.key.Created.Truncate(time.Millisecond)) {
		return nil
	}
	return fmt.Errorf("%w: %s has no %s, though it was recorded after its runs root began sealing (%s): its seal was removed, or the harness was killed while finishing it (fix: move it out of the runs root and run the case again)",
		ErrSealBroken, sc.dir, SealFile, sc.key.Created.Format(time.RFC3339))
}

// fileSHA256 returns the SHA-256 (hex) of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// state is the seal state of the files read through sc.
func (sc *sealCheck) state() SealState {
	if sc == nil || sc.seal == nil {
		return SealUnsealed
	}
	return SealVerified
}

// readJSON decodes the file name of the record into v, checked against the
// seal; a missing file reports false (and is an error when it was sealed).
func (sc *sealCheck) readJSON(name string, v any) (bool, error) {
	path := filepath.Join(sc.dir, filepath.FromSlash(name))
	data, ok, err := readCapped(path)
	if err != nil {
		return false, err
	}
	if err := sc.check(name, data, ok); err != nil {
		return false, err
	}
	if !ok {
		return false, nil
	}
	if err := decodeJSON(data, v); err != nil {
		return false, &FileError{Path: path, Err: err}
	}
	return true, nil
}
