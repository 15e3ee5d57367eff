package cursor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/golden"
)

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

			golden.Equal(t, filepath.Join("testdata", "golden", name+".events.jsonl"), got.Bytes())
		})
	}
}
