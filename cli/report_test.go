package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luxeval/lux/cli"
	"github.com/luxeval/lux/record"
	"github.com/stretchr/testify/require"
)

// recordTwoSuites runs two cases twice with the real echoagent and returns
// the runs root and its two suites.
func recordTwoSuites(t *testing.T) (string, []string) {
	t.Helper()
	reg := registry(t)
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	writeCase(t, cases, "hello.case.json", echoHelloCase)
	writeCase(t, cases, "color.case.json", echoColorCase)
	root := filepath.Join(dir, "runs")
	for range 2 {
		code, out, errOut := run(t, reg, "run", "-q", "-runs-root", root, "-driver", driverJSON(), cases)
		require.Equal(t, cli.ExitFailed, code, "the color case fails on purpose\n%s\n%s", out, errOut)
	}
	suites, err := record.FindSuites(root)
	require.NoError(t, err)
	require.Len(t, suites, 2)
	return root, suites
}

func TestReportHTML(t *testing.T) {
	reg := registry(t)
	root, suites := recordTwoSuites(t)
	out := t.TempDir()

	suitePage := filepath.Join(out, "suite.html")
	code, _, errOut := run(t, reg, "report", "-html", suitePage, suites[1])
	require.Equal(t, cli.ExitOK, code, errOut)
	require.Equal(t, "lux: report written to "+suitePage+"\n", errOut)
	html := readFile(t, suitePage)
	requireHTML(t, html, `<body data-kind="suite">`)
	requireHTML(t, html, `data-id="color"`)
	requireHTML(t, html, "answer to ask q1", "the runs' details are embedded")

	runs, err := record.FindRuns(root)
	require.NoError(t, err)
	runPage := filepath.Join(out, "run.html")
	code, _, errOut = run(t, reg, "report", "-html", runPage, runs[0])
	require.Equal(t, cli.ExitOK, code, errOut)
	requireHTML(t, readFile(t, runPage), `<body data-kind="run">`)

	cmpPage := filepath.Join(out, "comparison.html")
	code, _, errOut = run(t, reg, "report", "-html", cmpPage, "-tolerance", "0.1", suites[0], suites[1])
	require.Equal(t, cli.ExitOK, code, errOut)
	html = readFile(t, cmpPage)
	requireHTML(t, html, "No detectable difference between A and B")
	// The forest plot draws the metrics that changed in some paired case;
	// when none did (the two suites' durations can be equal to the
	// millisecond) it says so instead of drawing.
	requireHTML(t, html, `<h3 class="forest-title">Paired effects, B − A</h3>`)
	if !strings.Contains(html, "No change in any paired case (not plotted)") {
		requireHTML(t, html, `<svg class="forest" id="forest-effects"`)
	}
	requireHTML(t, html, "pass-rate tolerance 0.1", "the comparison flags reach the comparison")

	code, _, errOut = run(t, reg, "report", "-html", cmpPage, suites[0], suites[1])
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "exists; add -force to replace it")
	code, _, errOut = run(t, reg, "report", "-html", cmpPage, "-force", suites[0], suites[1])
	require.Equal(t, cli.ExitOK, code, errOut)

	code, _, errOut = run(t, reg, "report", "-html", cmpPage, runs[0], runs[1])
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "is a run directory: -html compares two suites")

	code, _, errOut = run(t, reg, "report", "-html", filepath.Join(out, "x.html"), out)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "is not a suite, a run or an experiment's ledger")
}

// serve starts lux view -serve on root and returns its URL and a func
// that stops it and returns its exit status.
func serve(t *testing.T, root string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, registry(t), []string{"view", "-serve", "-addr", "127.0.0.1:0", "-runs-root", root}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err, stderr.String())
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	require.NotEmpty(t, url, "the first line names the address: %q", line)
	go io.Copy(io.Discard, outR)
	return url, func() int { cancel(); return <-done }
}

func TestViewServe(t *testing.T) {
	root, suites := recordTwoSuites(t)
	url, stop := serve(t, root)

	body := get(t, url)
	require.Contains(t, body, `<body data-kind="index">`)
	rel, err := filepath.Rel(root, suites[1])
	require.NoError(t, err)
	link := regexp.MustCompile(`href="(/suite\?d=[^"]+)"`).FindAllStringSubmatch(body, -1)
	require.Len(t, link, 2, "the index links both suites")
	require.Contains(t, get(t, url+"suite?d="+filepath.ToSlash(rel)), `<body data-kind="suite">`)

	resp, err := http.Get(url + "run?d=../../etc")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "a path out of the runs root is refused")

	require.Equal(t, cli.ExitOK, stop())
}

// An experiment's ledger as a page: written with -html, and served.
func TestExperimentHTML(t *testing.T) {
	reg := registry(t)
	dir, campaign := experimentProject(t)
	runs := filepath.Join(dir, "runs")
	code, out, errOut := run(t, reg, "experiment", "-q", "-runs-root", runs, "-j", "2", campaign)
	require.Equal(t, 0, code, errOut)
	ledger := regexp.MustCompile(`ledger: (\S+)`).FindStringSubmatch(out)[1]

	page := filepath.Join(dir, "experiment.html")
	code, _, errOut = run(t, reg, "report", "-html", page, ledger)
	require.Equal(t, 0, code, errOut)
	html := readFile(t, page)
	requireHTML(t, html, `<body data-kind="experiment">`)
	requireHTML(t, html, `promote variant-x: pass rate effect (echoagent, validation) &#43;0.75`)
	require.Equal(t, 2, strings.Count(html, `<svg class="forest"`), "one forest plot per candidate, profile and split")
	requireHTML(t, html, `<td>runs</td><td>24</td><td>100</td>`, "the spend against the budget")
	requireHTML(t, html, `<table id="exp-cases"`, "the runs by case")
	requireHTML(t, html, `<table id="flips"`, "the cases whose verdict the candidate changed")
	requireHTML(t, html, `<section class="pair" id="pair-1"`, "a flip's paired view")

	code, _, errOut = run(t, reg, "report", "-html", filepath.Join(ledger, "x.html"), ledger)
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "inside the experiment's ledger")

	url, stop := serve(t, runs)
	index := get(t, url)
	link := regexp.MustCompile(`href="(/experiment\?d=[^"]+)"`).FindStringSubmatch(index)
	require.NotNil(t, link, "the index links the experiment")
	served := get(t, url+strings.TrimPrefix(strings.ReplaceAll(link[1], "&amp;", "&"), "/"))
	requireHTML(t, served, `<body data-kind="experiment">`)
	pair := regexp.MustCompile(`href="/(pair\?[^"]+)"`).FindStringSubmatch(served)
	require.NotNil(t, pair, "the served experiment links paired views")
	requireHTML(t, get(t, url+strings.ReplaceAll(pair[1], "&amp;", "&")), `<body data-kind="pair">`)
	require.Regexp(t, `href="/run\?d=[^"]+"`, served, "the served experiment links its runs")
	require.Equal(t, cli.ExitOK, stop())
}

func TestViewServeRefusesOtherAddresses(t *testing.T) {
	code, _, errOut := run(t, registry(t), "view", "-serve", "-addr", "0.0.0.0:0")
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, errOut, "not a loopback address")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", url, b)
	return string(b)
}

// requireHTML checks that a page contains want, without printing the page.
func requireHTML(t *testing.T, page, want string, msg ...any) {
	t.Helper()
	if !strings.Contains(page, want) {
		t.Fatalf("the page (%d bytes) does not contain %q %v", len(page), want, msg)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
