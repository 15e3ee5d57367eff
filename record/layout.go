package record

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultRoot is the runs root used when none is given.
const DefaultRoot = ".lux-runs"

// The files and directories of a run directory.
const (
	CaseFile      = "case.json"
	MetadataFile  = "run.json"
	EventsFile    = "events.jsonl"
	GradingFile   = "grading.json"
	ArtifactsFile = "artifacts.json"
	StderrFile    = "stderr.log"
	ArtifactsDir  = "artifacts"
)

// The files and directories of suites.
const (
	SuitesDir        = ".suites"
	SuiteFile        = "suite.json"
	SuiteSummaryFile = "suite-summary.json"
)

// Permissions of everything this package creates.
const (
	DirPerm  fs.FileMode = 0o700
	FilePerm fs.FileMode = 0o600
)

// Timestamp returns t in UTC, to the millisecond, as a directory name:
// 2025-01-02T03-04-05-678Z.
func Timestamp(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%03dZ", t.Format("2006-01-02T15-04-05"), t.Nanosecond()/int(time.Millisecond))
}

var stampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z(?:-\d+)?$`)

// IsStampName reports whether name looks like a run or suite directory
// name: a Timestamp, optionally followed by -N.
func IsStampName(name string) bool { return stampRE.MatchString(name) }

// CompareStampNames orders run, suite and grading names chronologically:
// by timestamp, then by suffix (none, -2, -3, ..., -10). Names that are
// not stamp names sort after, by bytes. An extension (".json") is ignored.
func CompareStampNames(a, b string) int {
	sa, na, oka := splitStamp(a)
	sb, nb, okb := splitStamp(b)
	switch {
	case oka && okb:
		if c := strings.Compare(sa, sb); c != 0 {
			return c
		}
		return na - nb
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

func splitStamp(name string) (string, int, bool) {
	name = strings.TrimSuffix(name, ".json")
	if !IsStampName(name) {
		return "", 0, false
	}
	stamp, suffix, found := strings.Cut(name, "Z-")
	if !found {
		return name, 1, true
	}
	n, err := strconv.Atoi(suffix)
	if err != nil {
		return "", 0, false
	}
	return stamp + "Z", n, true
}

// MaxSlugSegment is the longest path segment Slug returns, well under
// the 255 bytes file systems allow in a name.
const MaxSlugSegment = 100

// Slug turns a case id into a relative directory path: every character
// other than ASCII letters, digits, '-', '_' and '/' becomes '-', runs of
// '/' and of '-' collapse to one, and leading or trailing '/' are dropped.
// Slashes are kept, so "api/login" nests. A segment longer than
// MaxSlugSegment is cut and ends with a hash of the whole segment, so that
// long ids sharing a prefix stay apart. An empty result is "_".
func Slug(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '/':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	for strings.Contains(s, "//") {
		s = strings.ReplaceAll(s, "//", "/")
	}
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	s = strings.Trim(s, "/")
	if s == "" {
		return "_"
	}
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		if len(seg) > MaxSlugSegment {
			sum := sha256.Sum256([]byte(seg))
			segs[i] = seg[:MaxSlugSegment-13] + "-" + hex.EncodeToString(sum[:6])
		}
	}
	return strings.Join(segs, "/")
}

// NameSlug is Slug for a single path segment (a driver name): '/' becomes '-' too.
func NameSlug(name string) string {
	return Slug(strings.ReplaceAll(name, "/", "-"))
}

// RunDirParent is the directory holding the runs of one case with one driver.
func RunDirParent(root, caseID, driver string) string {
	return filepath.Join(root, filepath.FromSlash(Slug(caseID)), NameSlug(driver))
}

// ReserveRunDir creates a fresh run directory for a run of caseID with
// driver starting at t, and returns its path. Two callers never get the
// same directory: a name already taken gets the suffix -2, -3, ...
func ReserveRunDir(root, caseID, driver string, t time.Time) (string, error) {
	return reserve(RunDirParent(root, caseID, driver), Timestamp(t))
}

// ReserveSuiteDir creates a fresh suite directory under <root>/.suites.
func ReserveSuiteDir(root string, t time.Time) (string, error) {
	return reserve(filepath.Join(root, SuitesDir), Timestamp(t))
}

func reserve(parent, stamp string) (string, error) {
	if err := os.MkdirAll(parent, DirPerm); err != nil {
		return "", fmt.Errorf("record: create %s: %w", parent, err)
	}
	for n := 1; n < 10000; n++ {
		name := stamp
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		dir := filepath.Join(parent, name)
		err := os.Mkdir(dir, DirPerm)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("record: create %s: %w", dir, err)
		}
	}
	return "", fmt.Errorf("record: %s: no free directory name for %s", parent, stamp)
}

// FindRuns returns every run directory under root (a directory with a
// timestamp name holding run.json), sorted by case and driver directory
// and then oldest first, skipping the .suites tree and
// other dot directories. A root that does not exist has no runs.
func FindRuns(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && strings.HasPrefix(name, ".") {
			return filepath.SkipDir
		}
		if IsStampName(name) {
			if exists(filepath.Join(path, MetadataFile)) {
				out = append(out, path)
				return filepath.SkipDir
			}
			if exists(filepath.Join(path, EventsFile)) || exists(filepath.Join(path, CaseFile)) {
				return filepath.SkipDir // a run that never wrote run.json
			}
			// A case directory whose name looks like a timestamp (the
			// case id "2025-01-02T03-04-05-678Z", say): its runs are below.
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record: find runs under %s: %w", root, err)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
			return c
		}
		return CompareStampNames(filepath.Base(a), filepath.Base(b))
	})
	return out, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// FindSuites returns every suite directory under <root>/.suites, oldest first.
func FindSuites(root string) ([]string, error) {
	dir := filepath.Join(root, SuitesDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record: find suites: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && IsStampName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.SortFunc(names, CompareStampNames)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out, nil
}

// ErrUnusableRoot reports a runs root that cannot hold records: it is not
// a directory, or it cannot be created or written to.
var ErrUnusableRoot = errors.New("record: unusable runs root")

// CheckRoot makes sure root can hold records: it creates it when missing
// and checks that a file can be created in it. The error wraps
// ErrUnusableRoot and says what is wrong.
func CheckRoot(root string) error {
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (choose another runs root)", ErrUnusableRoot, root)
	}
	if err := os.MkdirAll(root, DirPerm); err != nil {
		return fmt.Errorf("%w: %s cannot be created: %v", ErrUnusableRoot, root, errors.Unwrap(err))
	}
	f, err := os.CreateTemp(root, ".probe-*")
	if err != nil {
		return fmt.Errorf("%w: %s is not writable: %v (choose another runs root, or fix its permissions)", ErrUnusableRoot, root, errors.Unwrap(err))
	}
	name := f.Name()
	_ = f.Close()
	_ = os.Remove(name)
	return nil
}
