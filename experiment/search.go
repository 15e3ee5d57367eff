package experiment

import "fmt"

// Capture reads the campaign's baseline: every mutable file of its
// subject, as Run captures it. A search (package optimize) shows these
// files to its optimizer and builds candidates over them.
func Capture(c *Campaign) (*Candidate, error) {
	s, err := c.subject()
	if err != nil {
		return nil, fmt.Errorf("experiment: campaign %s: %w", c.ID, err)
	}
	return s.capture()
}

// IsMutable reports whether rel (slash-separated, relative to the subject
// root) is a file candidates of c may change.
func IsMutable(c *Campaign, rel string) bool {
	s, err := c.subject()
	return err == nil && s.isMutable(rel)
}

// Materialize writes to dst (which must not exist) the subject of c
// minus its excluded paths, with files replacing mutable files of the same
// path: the tree a search evaluates a candidate in.
func Materialize(c *Campaign, files map[string]string, dst string) error {
	s, err := c.subject()
	if err != nil {
		return fmt.Errorf("experiment: campaign %s: %w", c.ID, err)
	}
	for rel := range files {
		if !s.isMutable(rel) {
			return fmt.Errorf("experiment: materialize: %s is not a mutable file of the subject", rel)
		}
	}
	_, err = s.materialize(&Candidate{ID: "search", Files: files}, dst)
	return err
}
