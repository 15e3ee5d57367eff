//go:build unix

package scripted_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luxeval/lux/answerer/scripted"
	"github.com/luxeval/lux/internal/ctxtest"
)

// A rules file that is not a regular file (a named pipe, a device) is
// refused at once: reading one could block forever or never end.
func TestFileMustBeARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "answers.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	for _, tt := range []struct{ name, file, want string }{
		{"named pipe", fifo, fmt.Sprintf(`file: %q is not a regular file (give a JSON file of rules; a relative path is relative to the working directory)`, fifo)},
		{"device", "/dev/null", `file: "/dev/null" is not a regular file (give a JSON file of rules; a relative path is relative to the working directory)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.file); err != nil {
				t.Skip(err)
			}
			cfg, _ := json.Marshal(map[string]any{"file": tt.file})
			done := make(chan error, 1)
			go func() {
				_, err := scripted.Plugin().Parse(cfg)
				done <- err
			}()
			select {
			case err := <-done:
				checkProblems(t, err, []string{tt.want})
			case <-ctxtest.SafetyNet(t): // a safety net only
				if tt.file == fifo { // unblock the reader
					if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				}
				t.Fatal("Parse is still reading the rules file")
			}
		})
	}
}

// A rules file over the limit is refused without reading it all.
func TestFileOverTheLimit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "answers.json")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	cfg, _ := json.Marshal(map[string]any{"file": name})
	_, err = scripted.Plugin().Parse(cfg)
	if err == nil || !strings.Contains(err.Error(), "over the limit of 4194304") {
		t.Errorf("Parse = %v, want the file refused as too large", err)
	}
}
