package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed assets/style.css
var styleCSS string

//go:embed assets/app.js
var appJS string

// contentSecurityPolicy allows the page's own style and its one script
// (by hash) and nothing else: no request leaves the page, and a script
// that escaped the escaping would still not run.
var contentSecurityPolicy = func() string {
	sum := sha256.Sum256([]byte(appJS))
	return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; " +
		"script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// pageTemplate is parsed when a page is first rendered, not when the
// program starts: most commands render none.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"join": joinTags,
		"mark": func(verdict string) string {
			switch verdict {
			case "pass":
				return "✓"
			case "fail":
				return "✗"
			case "error":
				return "!"
			case "cancelled":
				return "⊘"
			case "not-run":
				return "·"
			}
			return "?"
		},
		"pct":       pct,
		"difflines": diffLines,
		"sides":     func(a, b SideInfo) []SideInfo { return []SideInfo{a, b} },
	}).ParseFS(templateFS, "templates/*.tmpl"))
})

// servedSecurityPolicy is the policy of a served page: the same, and the
// page may ask its own server whether the record changed (the live view).
var servedSecurityPolicy = contentSecurityPolicy + "; connect-src 'self'"

// page is what the layout renders.
type page struct {
	Kind   string // suite, run, comparison, index
	Title  string
	Served bool
	Body   any
	CSP    string
	CSS    template.CSS
	JS     template.JS
}

// WriteHTML writes p (a *SuitePage, *RunPage, *ComparisonPage,
// *PairPage or *ExperimentPage) as one
// self-contained HTML document: styles and script embedded, nothing
// loaded from anywhere, every string escaped for where it appears.
func WriteHTML(w io.Writer, p any) error {
	return writePage(w, p, false)
}

func writePage(w io.Writer, p any, served bool) error {
	pg := page{Body: p, Served: served, CSP: contentSecurityPolicy, CSS: template.CSS(styleCSS), JS: template.JS(appJS)}
	if served {
		pg.CSP = servedSecurityPolicy
	}
	switch x := p.(type) {
	case *SuitePage:
		pg.Kind, pg.Title = "suite", "lux suite "+x.SuiteID
	case *RunPage:
		pg.Kind, pg.Title = "run", "lux run "+x.CaseID+" "+x.RunID
	case *ComparisonPage:
		pg.Kind, pg.Title = "comparison", "lux comparison: "+x.Verdict
	case *ExperimentPage:
		pg.Kind, pg.Title = "experiment", x.title()
	case *PairPage:
		pg.Kind, pg.Title = "pair", "lux pair "+x.CaseID+": "+x.A.Name+" against "+x.B.Name
	case *indexPage:
		pg.Kind, pg.Title = "index", "lux records under "+x.Root
	default:
		return fmt.Errorf("report: cannot render a %T (want *SuitePage, *RunPage, *ComparisonPage or *ExperimentPage)", p)
	}
	var buf bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&buf, "layout", pg); err != nil {
		return fmt.Errorf("report: render %s page: %w", pg.Kind, err)
	}
	// Whatever field a control character came in by (a tag, a file name,
	// a tool's name), the page shows it as U+FFFD: the templates' own text
	// has none.
	out := buf.Bytes()
	if bytes.IndexFunc(out, func(r rune) bool { return r != '\r' && isControl(r) }) >= 0 {
		out = bytes.Map(func(r rune) rune {
			if r != '\r' && isControl(r) {
				return '\uFFFD'
			}
			return r
		}, out)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("report: write %s page: %w", pg.Kind, err)
	}
	return nil
}

// joinTags puts tags in one attribute, one a line, for the script to split.
func joinTags(tags []string) string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = strings.ReplaceAll(plain(t), "\n", " ")
	}
	return strings.Join(out, "\n")
}

// diffLine is one line of a unified diff with its class: add, del, hunk,
// file or ctx.
type diffLine struct{ Class, Text string }

func diffLines(diff string) []diffLine {
	lines := strings.Split(diff, "\n")
	out := make([]diffLine, len(lines))
	for i, l := range lines {
		c := "ctx"
		switch {
		case i < 2 && (strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ")):
			c = "file"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		out[i] = diffLine{c, l}
	}
	return out
}
