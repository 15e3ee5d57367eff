package report

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// /changes answers unchanged after its wait when nothing changed, and
// changed once a file of the record's directory is written.
func TestChanges(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "rec")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "suite.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHandler(root, Options{}, 5*time.Millisecond, 50*time.Millisecond))
	t.Cleanup(srv.Close)
	ask := func(url string) bool {
		t.Helper()
		resp, err := http.Get(srv.URL + url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct{ Changed bool }
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		return got.Changed
	}
	url := serveLinks{root}.changes(dir)
	if ask(url) {
		t.Error("changed, though nothing was written")
	}
	done := make(chan bool)
	go func() { done <- ask(url) }()
	if err := os.WriteFile(file, []byte(`{"status":"passed"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if !<-done && !ask(url) {
		t.Error("unchanged, though suite.json was written")
	}
	if ask(serveLinks{root}.changes(dir)) {
		t.Error("the new version reads as changed")
	}
}
