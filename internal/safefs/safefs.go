// Package safefs reads files under a root directory without ever leaving it:
// a path is refused when it is absolute, contains a NUL byte, climbs out of
// the root with "..", or goes through a symbolic link anywhere (a link is
// never followed, not even one pointing inside the root). Files must be
// regular files, are opened without blocking (a named pipe swapped in is
// refused, not waited on), must be the very file that was inspected, and
// are read up to a size limit.
//
// It is how assertions look at what an agent left in its workspace: the
// agent controls that tree, so nothing in it is trusted. The checks are
// made for a quiet tree (the agent has been stopped), but a tree that
// changes between inspection and reading (a process that escaped the stop)
// still cannot lead a read or a walk outside the root: files and
// directories are opened from a descriptor of the root, component by
// component (os.Root), so a link swapped in after inspection is at most
// followed within the root, and a file read must be the one inspected.
// Such a change is refused with ErrChanged, ErrSymlink or a missing file.
//
// What no path check can see: a hard link. A regular file in the root that
// is a hard link to a file elsewhere on the same file system is read like
// any other (the agent could only make one to a file it could read anyway).
// Paths given to other programs (DirPath, for a command's working
// directory) are checked once and then used by name.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Sentinel errors; check them with errors.Is. Errors for a missing file wrap
// fs.ErrNotExist.
var (
	// ErrUnsafePath reports a path that is absolute, contains a NUL byte or
	// escapes the root.
	ErrUnsafePath = errors.New("safefs: unsafe path")
	// ErrSymlink reports a path that goes through a symbolic link.
	ErrSymlink = errors.New("safefs: path goes through a symlink")
	// ErrNotRegular reports a path that names something other than a regular file.
	ErrNotRegular = errors.New("safefs: not a regular file")
	// ErrNotDir reports a path whose parent (or itself, where a directory is
	// wanted) is not a directory.
	ErrNotDir = errors.New("safefs: not a directory")
	// ErrTooLarge reports a file larger than the limit it was read with.
	ErrTooLarge = errors.New("safefs: file too large")
	// ErrChanged reports a file that changed between inspection and reading.
	ErrChanged = errors.New("safefs: file changed while being read")
)

// Root is a directory that paths are resolved in.
type Root struct {
	// Dir is the directory. It is trusted: only what lies below it is checked.
	Dir string
	// Name is how messages call the root, e.g. "workspace" or "run
	// directory"; empty means "root".
	Name string
}

func (r Root) name() string {
	if r.Name == "" {
		return "root"
	}
	return r.Name
}

// Error is a refused or failed path. Its message reads like
// `path "../x" escapes the workspace`; Unwrap gives the sentinel (or the
// underlying fs error).
type Error struct {
	Path    string // as given
	Problem string // e.g. `escapes the workspace`
	Err     error
}

func (e *Error) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Problem) }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Clean checks rel lexically and returns it cleaned and slash-separated ("."
// for the root itself). It refuses a NUL byte, an absolute path and any path
// whose cleaned form climbs out of the root. It touches no file.
func Clean(rel string) (string, error) { return clean(rel, "root") }

// Clean is the package-level Clean with errors naming r, as in
// `path "../x" escapes the workspace`.
func (r Root) Clean(rel string) (string, error) { return clean(rel, r.name()) }

func clean(rel, rootName string) (string, error) {
	switch {
	case strings.ContainsRune(rel, 0):
		return "", &Error{Path: rel, Problem: "contains a NUL byte", Err: ErrUnsafePath}
	case path.IsAbs(rel) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return "", &Error{Path: rel, Problem: "is absolute", Err: ErrUnsafePath}
	}
	clean := path.Clean(filepath.ToSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &Error{Path: rel, Problem: "escapes the " + rootName, Err: ErrUnsafePath}
	}
	return clean, nil
}

// Resolve returns the file system path of rel inside r after checking every
// component: none may be a symlink, every parent must be a directory. The
// returned info is the Lstat of the final component. A component that does
// not exist gives an error wrapping fs.ErrNotExist.
func (r Root) Resolve(rel string) (string, fs.FileInfo, error) {
	_, full, info, err := r.resolve(rel)
	return full, info, err
}

// resolve is Resolve, also returning rel cleaned.
func (r Root) resolve(rel string) (cleaned, full string, info fs.FileInfo, err error) {
	cleaned, err = clean(rel, r.name())
	if err != nil {
		return "", "", nil, err
	}
	if r.Dir == "" {
		return "", "", nil, &Error{Path: rel, Problem: "has no " + r.name() + " to be resolved in", Err: ErrNotDir}
	}
	full = r.Dir
	info, err = os.Stat(r.Dir) // the root itself is trusted and may be reached through a link
	if err != nil {
		return "", "", nil, &Error{Path: rel, Problem: fmt.Sprintf("cannot be resolved: the %s: %v", r.name(), unwrapPathError(err)), Err: err}
	}
	if !info.IsDir() {
		return "", "", nil, &Error{Path: rel, Problem: fmt.Sprintf("cannot be resolved: the %s is not a directory", r.name()), Err: ErrNotDir}
	}
	if cleaned == "." {
		return cleaned, full, info, nil
	}
	parts := strings.Split(cleaned, "/")
	for i, part := range parts {
		full = filepath.Join(full, part)
		sofar := strings.Join(parts[:i+1], "/")
		info, err = os.Lstat(full)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				what := "does not exist"
				if i < len(parts)-1 {
					what = fmt.Sprintf("does not exist (no %q)", sofar)
				}
				return "", "", nil, &Error{Path: rel, Problem: what, Err: fs.ErrNotExist}
			}
			return "", "", nil, &Error{Path: rel, Problem: "cannot be inspected: " + unwrapPathError(err).Error(), Err: err}
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			p := "goes through a symlink"
			if i < len(parts)-1 {
				p = fmt.Sprintf("goes through a symlink (%q)", sofar)
			}
			return "", "", nil, &Error{Path: rel, Problem: p, Err: ErrSymlink}
		}
		if i < len(parts)-1 && !info.IsDir() {
			return "", "", nil, &Error{Path: rel, Problem: fmt.Sprintf("goes through %q, which is not a directory", sofar), Err: ErrNotDir}
		}
	}
	return cleaned, full, info, nil
}

// Stat returns the Lstat of rel after the checks of Resolve.
func (r Root) Stat(rel string) (fs.FileInfo, error) {
	_, info, err := r.Resolve(rel)
	return info, err
}

// DirPath returns the file system path of rel after the checks of Resolve,
// requiring a directory.
func (r Root) DirPath(rel string) (string, error) {
	full, info, err := r.Resolve(rel)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", &Error{Path: rel, Problem: "is not a directory", Err: ErrNotDir}
	}
	return full, nil
}

// ReadFile reads the regular file rel, refusing one larger than limit bytes
// (limit <= 0 means no limit). It reads at most limit+1 bytes, so a file that
// grew after inspection is caught too.
func (r Root) ReadFile(rel string, limit int64) ([]byte, error) {
	cleaned, _, info, err := r.resolve(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &Error{Path: rel, Problem: "is not a regular file (" + kind(info.Mode()) + ")", Err: ErrNotRegular}
	}
	if limit > 0 && info.Size() > limit {
		return nil, &Error{Path: rel, Problem: fmt.Sprintf("is %d bytes, over the limit of %d", info.Size(), limit), Err: ErrTooLarge}
	}
	if testHookBeforeOpen != nil {
		testHookBeforeOpen()
	}
	f, err := r.open(cleaned, os.O_RDONLY|openFlags)
	if err != nil {
		return nil, r.openError(rel, "opened", err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: rel, Problem: "cannot be inspected: " + unwrapPathError(err).Error(), Err: err}
	}
	if !opened.Mode().IsRegular() || !os.SameFile(info, opened) {
		return nil, &Error{Path: rel, Problem: "changed between inspection and reading", Err: ErrChanged}
	}
	var src io.Reader = f
	if limit > 0 {
		src = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, &Error{Path: rel, Problem: "cannot be read: " + unwrapPathError(err).Error(), Err: err}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &Error{Path: rel, Problem: fmt.Sprintf("grew past the limit of %d bytes while being read", limit), Err: ErrTooLarge}
	}
	return data, nil
}

// open opens the cleaned path rel inside the root, never leaving it: the
// path is resolved component by component from a descriptor of the root
// directory, so a directory swapped for a symlink after inspection cannot
// lead outside (os.Root). flag never follows a final symlink and never
// blocks on a named pipe.
func (r Root) open(rel string, flag int) (*os.File, error) {
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(rel, flag, 0)
}

// openError words an error of open for rel, which was inspected and found
// fine just before: a component that is gone is missing; one that became a
// symlink, stopped being a directory, or leads out of the root means the
// tree changed; anything else is a problem of the reader.
func (r Root) openError(rel, what string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Path: rel, Problem: "does not exist (removed after inspection)", Err: err}
	case isLoop(err):
		return &Error{Path: rel, Problem: "goes through a symlink", Err: ErrSymlink}
	case changedUnder(err):
		return &Error{Path: rel, Problem: fmt.Sprintf("changed between inspection and being %s: %v", what, unwrapPathError(err)), Err: ErrChanged}
	}
	return &Error{Path: rel, Problem: "cannot be " + what + ": " + unwrapPathError(err).Error(), Err: err}
}

// changedUnder reports whether err, from opening a path that was just
// inspected, says the tree changed: a component is no longer a directory,
// or (an error of os.Root that is not a system error) the path now leads
// out of the root.
func changedUnder(err error) bool {
	if errors.Is(err, syscall.ENOTDIR) {
		return true
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	_, sysErr := pe.Err.(syscall.Errno)
	return !sysErr
}

// testHookBeforeOpen, when set by a test, runs between inspecting a file
// and opening it.
var testHookBeforeOpen func()

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
