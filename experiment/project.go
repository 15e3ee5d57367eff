package experiment

import (
	"fmt"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/project"
)

// useProject fills the profiles that name a project profile from f (see
// LoadWithProject), its queue included.
func (c *Campaign) useProject(f *project.File) error {
	var p lux.Problems
	for _, name := range sortedKeys(c.Profiles) {
		pr := c.Profiles[name]
		if pr.Project == "" {
			continue
		}
		at := "profiles." + name + ".project"
		if f == nil || f.Path == "" {
			p.AddFix(at, fmt.Sprintf("names the project profile %q, but no %s was found", pr.Project, project.FileName),
				"run from the directory holding "+project.FileName+", pass -config FILE, or give the profile its driver")
			continue
		}
		prof, ok := f.Profiles[pr.Project]
		if !ok {
			known := "it declares none"
			if names := f.ProfileNames(); len(names) > 0 {
				known = "declared: " + strings.Join(names, ", ")
			}
			p.AddFix(at, fmt.Sprintf("%s has no profile %q", f.Path, pr.Project), known)
			continue
		}
		if len(prof.Harness) > 0 {
			p.AddFix(at, fmt.Sprintf("the project profile %q sets a harness model, which an experiment does not apply per profile", pr.Project),
				"set the harness model in the persona or rubric config of the cases instead")
			continue
		}
		if pr.Driver == nil {
			pr.Driver = firstRef(prof.Driver, f.DefaultDriver)
		}
		if pr.Answerer == nil {
			pr.Answerer = firstRef(prof.Answerer, f.DefaultAnswerer)
		}
		if len(pr.Environment) == 0 {
			pr.Environment = prof.Environment
			if len(pr.Environment) == 0 {
				pr.Environment = f.Environment
			}
		}
		if pr.Queue == "" {
			pr.Queue = prof.Queue
		}
		c.Profiles[name] = pr
	}
	if p.Len() > 0 {
		return invalid(&p)
	}
	return nil
}

func firstRef(refs ...*lux.PluginRef) *lux.PluginRef {
	for _, r := range refs {
		if r != nil {
			return r
		}
	}
	return nil
}
