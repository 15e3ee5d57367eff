package cursor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/luxeval/lux"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestFixturesGolden parses every recorded stream-json file under testdata
// and compares the events with testdata/golden/<name>.events.jsonl.
func TestFixturesGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := newParser(parseOptions{Model: "auto", CLIVersion: "2026.09.10-fake001", Partial: name == "partial"})
			var got bytes.Buffer
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			write := func(evs []lux.Event) {
				for _, e := range evs {
					b, err := json.Marshal(e)
					if err != nil {
						t.Fatal(err)
					}
					got.Write(b)
					got.WriteByte('\n')
				}
			}
			for sc.Scan() {
				write(p.Line(sc.Bytes()))
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			write(p.Finish())

			golden := filepath.Join("testdata", "golden", name+".events.jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("events of %s (-want +got):\n%s", path, diff)
			}
		})
	}
}
