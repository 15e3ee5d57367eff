package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/luxeval/lux/compare"
	"github.com/luxeval/lux/record"
)

// Handler serves the records under root for browsing: an index of suites
// and runs at /, each suite at /suite?d=REL, each run (its whole
// trajectory) at /run?d=REL and the comparison of two suites at
// /compare?a=REL&b=REL, two runs side by side at /pair?a=REL&b=REL,
// whether a record changed at /changes?d=REL&v=VERSION (for the live view
// of a suite or experiment still running, see Live), and, with opts.Ledgers, each experiment at
// /experiment?d=REL, REL being a directory relative to root. Every page
// is rendered when it is asked for, so a suite page stays small however
// many runs it has: a run's trajectory is read only when its page is
// opened. A path that leaves root is refused.
func Handler(root string, opts Options) http.Handler {
	return newHandler(root, opts, liveTick, liveWait)
}

func newHandler(root string, opts Options, tick, wait time.Duration) http.Handler {
	s := &server{root: root, opts: opts.withDefaults(), tick: tick, wait: wait}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /suite", s.suite)
	mux.HandleFunc("GET /run", s.run)
	mux.HandleFunc("GET /compare", s.compare)
	mux.HandleFunc("GET /pair", s.pair)
	mux.HandleFunc("GET /changes", s.changes)
	mux.HandleFunc("GET /experiment", s.experiment)
	return mux
}

type server struct {
	root       string
	opts       Options
	tick, wait time.Duration // of /changes
}

// serveLinks makes the URLs of served pages.
type serveLinks struct{ root string }

func (l serveLinks) rel(dir string) string {
	rel, err := filepath.Rel(l.root, dir)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	return filepath.ToSlash(rel)
}

func (l serveLinks) run(dir string) string {
	if dir == "" {
		return ""
	}
	return "/run?" + url.Values{"d": {l.rel(dir)}}.Encode()
}

func (l serveLinks) experiment(dir string) string {
	return "/experiment?" + url.Values{"d": {l.rel(dir)}}.Encode()
}

func (l serveLinks) pair(a, b string) string {
	return "/pair?" + url.Values{"a": {l.rel(a)}, "b": {l.rel(b)}}.Encode()
}

func (l serveLinks) suite(dir string) string {
	return "/suite?" + url.Values{"d": {l.rel(dir)}}.Encode()
}

// dir resolves the query parameter key to a directory under the root.
func (s *server) dir(r *http.Request, key string) (string, error) {
	rel := r.URL.Query().Get(key)
	if rel == "" {
		return "", fmt.Errorf("missing parameter %q", key)
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%q is not a directory under the runs root", rel)
	}
	dir := filepath.Join(s.root, filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("%q: no such record", rel)
	}
	return dir, nil
}

func (s *server) write(w http.ResponseWriter, p any) {
	var buf bytes.Buffer
	if err := writePage(&buf, p, true); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", servedSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(buf.Bytes())
}

func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, compare.ErrNotRecord) {
		code = http.StatusNotFound
	}
	http.Error(w, err.Error(), code)
}

func (s *server) suite(w http.ResponseWriter, r *http.Request) {
	dir, err := s.dir(r, "d")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	p, err := suitePage(r.Context(), dir, s.opts, serveLinks{s.root})
	if err != nil {
		fail(w, err)
		return
	}
	if p.Status == string(record.SuiteRunning) {
		p.Live = &Live{Changes: serveLinks{s.root}.changes(dir), Done: p.done, Total: p.planned}
	}
	s.write(w, p)
}

func (s *server) run(w http.ResponseWriter, r *http.Request) {
	dir, err := s.dir(r, "d")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	rec, err := readVerifiedRun(r.Context(), dir)
	if err != nil {
		fail(w, err)
		return
	}
	s.write(w, runPage(rec, s.opts, 0))
}

func (s *server) pair(w http.ResponseWriter, r *http.Request) {
	var runs [2]*record.Run
	for i, key := range []string{"a", "b"} {
		dir, err := s.dir(r, key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if runs[i], err = readVerifiedRun(r.Context(), dir); err != nil {
			fail(w, err)
			return
		}
	}
	s.write(w, pairPage(runs[0], runs[1], "", "", s.opts, 0, serveLinks{s.root}))
}

func (s *server) compare(w http.ResponseWriter, r *http.Request) {
	a, err := s.dir(r, "a")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	b, err := s.dir(r, "b")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	c, err := compare.Suites(r.Context(), a, b, compare.Options{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.write(w, comparisonPage(c, serveLinks{s.root}, s.opts))
}

func (s *server) experiment(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ledgers == nil {
		http.NotFound(w, r)
		return
	}
	dir, err := s.dir(r, "d")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	p, err := s.opts.Ledgers.Page(r.Context(), dir)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.linkRuns(serveLinks{s.root})
	if p.Status == "running" {
		p.Live = &Live{Changes: serveLinks{s.root}.changes(dir), Done: len(p.Runs)}
	}
	s.write(w, p)
}

// indexPage lists the records under a root.
type indexPage struct {
	Root        string
	Experiments []indexLink
	Suites      []indexSuite
	Runs        []indexRun
	RunsNote    string
}

type indexSuite struct {
	Rel, Href, Status              string
	Label, GitBranch               string
	Runs, Passed, Failed, Ungraded int
}

type indexLink struct {
	Rel, Href string
}

type indexRun struct {
	Rel, Href, CaseID, Verdict, Exit string
}

// maxIndexRuns caps the runs the index lists (the latest ones).
const maxIndexRuns = 500

func (s *server) index(w http.ResponseWriter, r *http.Request) {
	ln := serveLinks{s.root}
	p := &indexPage{Root: s.root}
	suites, err := record.FindSuites(s.root)
	if err != nil {
		fail(w, err)
		return
	}
	if l := s.opts.Ledgers; l != nil {
		dirs, err := l.List(s.root)
		if err != nil {
			fail(w, err)
			return
		}
		slices.Reverse(dirs)
		for _, d := range dirs {
			p.Experiments = append(p.Experiments, indexLink{Rel: ln.rel(d), Href: ln.experiment(d)})
		}
	}
	slices.Reverse(suites) // newest first
	for _, dir := range suites {
		is := indexSuite{Rel: ln.rel(dir), Href: ln.suite(dir)}
		if st, err := record.ReadSuite(dir); err != nil {
			is.Status = "unreadable: " + err.Error()
		} else {
			is.Status, is.Runs = string(st.Manifest.Status), len(st.Manifest.Items)
			is.Label, is.GitBranch = st.Manifest.Label, st.Manifest.GitBranch
			if st.Summary != nil {
				is.Passed, is.Failed, is.Ungraded = st.Summary.Totals.Passed, st.Summary.Totals.Failed, st.Summary.Totals.Ungraded
			}
		}
		p.Suites = append(p.Suites, is)
	}
	runs, err := record.FindRuns(s.root)
	if err != nil {
		fail(w, err)
		return
	}
	slices.SortStableFunc(runs, func(a, b string) int { return record.CompareStampNames(filepath.Base(b), filepath.Base(a)) })
	if len(runs) > maxIndexRuns {
		p.RunsNote = fmt.Sprintf("the latest %d of %d runs; every run of a suite is linked from its page", maxIndexRuns, len(runs))
		runs = runs[:maxIndexRuns]
	}
	for _, dir := range runs {
		ir := indexRun{Rel: ln.rel(dir), Href: ln.run(dir)}
		if m, g, err := record.ReadMetadata(dir); err != nil {
			ir.Verdict = "unreadable"
		} else {
			ir.CaseID, ir.Verdict, ir.Exit = m.CaseID, cssName(record.RunVerdict(m, g)), string(m.ExitReason)
		}
		p.Runs = append(p.Runs, ir)
	}
	s.write(w, p)
}
