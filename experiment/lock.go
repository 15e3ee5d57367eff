package experiment

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/internal/proc"
)

// lockInfo is the content of a ledger's .lock.
type lockInfo struct {
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	Token string `json:"token"`
}

// ledgerLock is a held lock.
type ledgerLock struct {
	path  string
	token string
}

// lock takes dir's lock: created exclusively; a lock whose owner (on this
// host) has died is taken over by renaming it away first, so that of two
// successors only one takes it.
func lock(dir string) (*ledgerLock, error) {
	path := filepath.Join(dir, LockFile)
	host, _ := os.Hostname()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	info := lockInfo{PID: os.Getpid(), Host: host, Token: hex.EncodeToString(b)}
	data, _ := json.Marshal(info)
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				_ = os.Remove(path)
				return nil, fmt.Errorf("experiment: lock %s: %w", path, err)
			}
			return &ledgerLock{path: path, token: info.Token}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("experiment: lock %s: %w", path, err)
		}
		var owner lockInfo
		raw, rerr := os.ReadFile(path)
		if rerr == nil && json.Unmarshal(raw, &owner) == nil && owner.Host == host && owner.PID > 0 && proc.Alive(owner.PID) {
			return nil, fmt.Errorf("experiment: %s is being run by process %d; wait for it to end (or stop it) before resuming", dir, owner.PID)
		}
		if rerr == nil && owner.Host != "" && owner.Host != host {
			return nil, fmt.Errorf("experiment: %s is locked by process %d on host %s; if it is gone, remove %s", dir, owner.PID, owner.Host, path)
		}
		// The owner is dead (or the lock is torn): move it aside, then retry.
		stale := path + ".stale-" + info.Token
		if err := os.Rename(path, stale); err == nil {
			_ = os.Remove(stale)
		}
	}
	return nil, fmt.Errorf("experiment: could not take the lock %s", path)
}

// unlock releases the lock if it is still ours.
func (l *ledgerLock) unlock() {
	raw, err := os.ReadFile(l.path)
	var owner lockInfo
	if err == nil && json.Unmarshal(raw, &owner) == nil && owner.Token == l.token {
		_ = os.Remove(l.path)
	}
}
