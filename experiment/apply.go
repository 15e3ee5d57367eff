package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Applied is what Apply wrote.
type Applied struct {
	Candidate   string   `json:"candidate"`
	SubjectRoot string   `json:"subjectRoot"`
	Files       []string `json:"files"` // the files written, sorted
	Bytes       int64    `json:"bytes"` // their new size in total
}

// writeFile writes one applied file atomically, keeping its mode; tests
// replace it to fail a write.
var writeFile = func(path string, data []byte) error {
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lux-apply-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(info.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// Apply writes the champion's files into the subject root. It verifies the
// ledger and its decision first (see Ledger.Verify); the experiment must
// have passed with a champion other than the baseline, and candidate, when
// not empty, must be that champion. It writes only if the subject still
// matches the tree the experiment captured (else it refuses, naming the
// changed files), each file atomically, and restores the files already
// written when one write fails.
func Apply(ctx context.Context, dir, candidate string) (*Applied, error) {
	l, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if _, err := l.Verify(ctx); err != nil {
		return nil, err
	}
	m := l.Manifest
	d := m.Decision
	switch {
	case m.Status != StatusPassed || d == nil || d.Champion == "":
		return nil, fmt.Errorf("experiment: %s has no champion to apply (status %s)", l.Dir, m.Status)
	case candidate != "" && candidate != d.Champion:
		return nil, fmt.Errorf("experiment: %s: candidate %s is not the champion (%s); only the champion is applied", l.Dir, candidate, d.Champion)
	case d.Champion == BaselineID:
		return nil, fmt.Errorf("experiment: %s retained the baseline: there is nothing to apply", l.Dir)
	}
	var champ, base *Candidate
	for _, c := range l.Candidates {
		switch c.ID {
		case d.Champion:
			champ = c
		case BaselineID:
			base = c
		}
	}
	if champ == nil || base == nil {
		return nil, fmt.Errorf("experiment: %s: the ledger lacks the champion's or the baseline's candidate file", l.Dir)
	}
	camp := *l.Campaign
	sub, err := camp.subject()
	if err != nil {
		return nil, err
	}
	sub.root = m.SubjectRoot
	if h, err := sub.hash(sub.root); err != nil || h != m.BaseHash {
		what := ""
		if now, err := sub.files(sub.root); err == nil && m.SubjectFiles != nil {
			what = filesDiff(m.SubjectFiles, now)
		} else if changed := sub.changedFiles(sub.root, base); len(changed) > 0 {
			what = "changed: " + strings.Join(changed, ", ")
		}
		if what == "" {
			// A ledger written before the files were kept: only the
			// mutable files can be compared.
			what = "files outside the mutable set changed, or were added or removed"
		}
		return nil, fmt.Errorf("experiment: the subject %s no longer matches the tree the experiment measured (%s); nothing was applied (start a new experiment on the current subject)", sub.root, what)
	}
	out := &Applied{Candidate: champ.ID, SubjectRoot: sub.root, Files: []string{}}
	var written []string
	for _, rel := range sortedKeys(champ.Files) {
		if champ.Files[rel] == base.Files[rel] {
			continue
		}
		path := filepath.Join(sub.root, filepath.FromSlash(rel))
		if err := writeFile(path, []byte(champ.Files[rel])); err != nil {
			var rollback []error
			for _, w := range written {
				if rerr := writeFile(filepath.Join(sub.root, filepath.FromSlash(w)), []byte(base.Files[w])); rerr != nil {
					rollback = append(rollback, rerr)
				}
			}
			if len(rollback) > 0 {
				return nil, fmt.Errorf("experiment: apply %s: writing %s failed (%v) and restoring the files already written failed too: %w", champ.ID, rel, err, errors.Join(rollback...))
			}
			return nil, fmt.Errorf("experiment: apply %s: writing %s failed, the files already written were restored: %w", champ.ID, rel, err)
		}
		written = append(written, rel)
		out.Files = append(out.Files, rel)
		out.Bytes += int64(len(champ.Files[rel]))
	}
	return out, nil
}
