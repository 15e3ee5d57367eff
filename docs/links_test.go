// Package docs holds the project's documentation pages; its test checks
// that every relative link in README.md and docs/*.md resolves.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6} (.*)$`)
)

// TestLinksResolve checks every relative link of README.md and docs/*.md:
// the file it names exists, and a #fragment names a heading of that file
// (as GitHub makes heading anchors). A page moved or a heading renamed
// without its links fails here.
func TestLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"), filepath.Join("..", "PROTOCOL.md"))
	if len(pages) < 2 {
		t.Fatalf("found only %v: the test must run in the docs directory", pages)
	}
	checked := 0
	for _, page := range pages {
		text := read(t, page)
		for _, link := range links(text) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %v", page, link, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q: a fragment of a file that is not markdown", page, link)
				continue
			}
			if !anchors(read(t, target))[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, link, target, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: the link pattern is broken")
	}
}

// The README is the front door: what lux is, the two commands, the short
// path for a module of one's own and links. The manual lives in docs/.
func TestReadmeStaysAFrontDoor(t *testing.T) {
	const maxLines = 250
	if n := strings.Count(read(t, filepath.Join("..", "README.md")), "\n"); n > maxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a page under docs/ and link it", n, maxLines)
	}
}

// TestSlug pins the anchor rule to GitHub's on headings the pages use.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Paths in a driver's config": "paths-in-a-drivers-config",
		"Rubric: a model as judge":   "rubric-a-model-as-judge",
		"1. Install":                 "1-install",
		"CI (GitHub Actions)":        "ci-github-actions",
		"`lux run` flags":            "lux-run-flags",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// links returns the link targets outside fenced code blocks.
func links(text string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors returns the anchors GitHub gives the headings of a page,
// repeated headings numbered from -1.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's heading anchor: lower case, letters, digits, '-' and
// '_' kept, spaces made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
