package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Live is what a served page of a suite or an experiment still running
// shows and how it refreshes: the page asks Changes, which answers once
// the record's directory changes (or after a while, unchanged), and
// reloads only then. The server only looks at the directory's entries
// (names, sizes and times) while it waits, once a second: nothing is read
// or rendered again until something changed.
type Live struct {
	// Changes is the URL that answers when the record changes.
	Changes string
	// Done and Total count the runs (units) finished and planned, when
	// known (Total 0: unknown).
	Done, Total int
}

// liveWait is how long a request to /changes waits for a change before it
// answers unchanged; liveTick how often it looks.
const (
	liveWait = 25 * time.Second
	liveTick = time.Second
)

// dirVersion fingerprints the entries of dir (not their contents): a
// record being written changes a file's size or time, or adds one.
func dirVersion(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "gone"
	}
	h := sha256.New()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func (l serveLinks) changes(dir string) string {
	return "/changes?" + url.Values{"d": {l.rel(dir)}, "v": {dirVersion(dir)}}.Encode()
}

// changes answers {"changed": true} once the directory d no longer has
// the version v, or {"changed": false} after liveWait (or when the client
// leaves).
func (s *server) changes(w http.ResponseWriter, r *http.Request) {
	dir, err := s.dir(r, "d")
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	changed := s.waitChange(r, dir, r.URL.Query().Get("v"))
	if r.Context().Err() != nil {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]bool{"changed": changed})
}

// waitChange looks at dir every s.tick until its version is no longer v
// (true) or s.wait has passed or the client left (false).
func (s *server) waitChange(r *http.Request, dir, v string) bool {
	tick := time.NewTicker(s.tick)
	defer tick.Stop()
	wait := time.NewTimer(s.wait)
	defer wait.Stop()
	for {
		if dirVersion(dir) != v {
			return true
		}
		select {
		case <-tick.C:
		case <-wait.C:
			return false
		case <-r.Context().Done():
			return false
		}
	}
}
