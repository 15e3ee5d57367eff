package report

import "context"

// Options bounds what a page holds. The zero value means the defaults,
// which keep a static suite file within the bound documented in the
// package documentation.
type Options struct {
	// MaxEmbeddedRuns is how many runs' details (trajectory, assertions,
	// artifacts) a static suite page embeds; default 50. Runs that did not
	// pass come first. In a served page (Handler) every run has its own
	// page, loaded when its link is followed, and nothing is embedded.
	MaxEmbeddedRuns int
	// MaxEvents is how many events of one trajectory a static page shows;
	// default 400. A served run page shows every event.
	MaxEvents int
	// MaxText is how many bytes of one text (a message, a tool input or
	// result, an assertion's evidence) a page shows; default 4096.
	MaxText int
	// MaxPreview is how many bytes of an artifact a page previews; default 2048.
	MaxPreview int
	// MaxArtifacts is how many artifacts of one run a page lists; default 100.
	MaxArtifacts int
	// MaxRows is how many rows of the case table a suite page lays out
	// until asked to show all (every row is in the page; filters and
	// sorting see them all); default 500.
	MaxRows int
	// MaxPairs is how many paired views (one run of A and one of B of a
	// case that changed) a static comparison page embeds; default 20, the
	// surest changes first. A served comparison links every case's.
	MaxPairs int
	// Labels, when set, shows on each run page the labels of its run
	// beside the grading (each label's verdicts, annotator and feedback,
	// disagreements highlighted).
	Labels *LabelSet
	// Ledgers, when set, lets Handler list and show experiments. Package
	// report does not read ledgers itself: package experiment, which drives
	// the orchestrator, sits above it in the import graph.
	Ledgers *Ledgers
}

// Ledgers reads experiments' ledgers for a served root.
type Ledgers struct {
	// List returns the ledger directories under a runs root, oldest first.
	List func(root string) ([]string, error)
	// Page builds the page of the ledger in dir.
	Page func(ctx context.Context, dir string) (*ExperimentPage, error)
}

func (o Options) withDefaults() Options {
	if o.MaxEmbeddedRuns <= 0 {
		o.MaxEmbeddedRuns = 50
	}
	if o.MaxEvents <= 0 {
		o.MaxEvents = 400
	}
	if o.MaxText <= 0 {
		o.MaxText = 4096
	}
	if o.MaxPreview <= 0 {
		o.MaxPreview = 2048
	}
	if o.MaxArtifacts <= 0 {
		o.MaxArtifacts = 100
	}
	if o.MaxPairs <= 0 {
		o.MaxPairs = 20
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 500
	}
	return o
}

// links makes the hrefs of a page: in a static file, anchors to embedded
// sections; in a served page, URLs of other pages.
type links interface {
	// run returns the href of the run in runDir ("" when it has none).
	run(runDir string) string
	// suite returns the href of the suite in dir.
	suite(dir string) string
	// pair returns the href of the paired view of the runs in a and b.
	pair(a, b string) string
}
