package assertion

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/internal/glob"
)

type globCountConfig struct {
	Glob string `json:"glob"`
	Min  *int   `json:"min,omitempty"`
	Max  *int   `json:"max,omitempty"`
	In   string `json:"in,omitempty"`

	g glob.Glob
}

func globCount() *lux.AssertionPlugin {
	return define("glob-count",
		"Passes when the number of regular files matching glob (\"**\" for any depth, {a,b} alternatives) is within min and max. Symlinks are neither followed nor counted.",
		func(c *globCountConfig, p *lux.Problems) {
			g, err := glob.Compile(c.Glob)
			if err != nil {
				p.AddFix("glob", err.Error(), "give a slash-separated pattern relative to the workspace, such as \"src/**/*.go\"")
			}
			c.g = g
			bounds{c.Min, c.Max}.validate("min", "max", true, p)
			checkIn(&c.In, p)
		},
		func(_ context.Context, c *globCountConfig, run *lux.Run) (lux.Result, error) {
			root, err := rootOf(run, c.In)
			if err != nil {
				return lux.Result{}, fmt.Errorf("assertion: glob-count: %w", err)
			}
			files, symlinks, err := c.g.Files(root)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					files, err = nil, nil
				} else {
					return lux.Result{}, fmt.Errorf("assertion: glob-count: %w", err)
				}
			}
			b := bounds{c.Min, c.Max}
			ok, why := b.check(len(files))
			shown := files
			if len(shown) > 10 {
				shown = shown[:10]
			}
			detail := b.detail(map[string]any{"glob": c.Glob, "in": c.In, "count": len(files), "files": nonNil(shown)})
			if len(symlinks) > 0 {
				detail["skippedSymlinks"] = symlinks
			}
			comment := fmt.Sprintf("%s match %q: %s", plural(len(files), "file", "files"), c.Glob, why)
			return verdict(ok, comment, detail), nil
		})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
