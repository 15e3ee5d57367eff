package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/luxeval/lux"
)

func pluginsCommand() command {
	return command{
		name:    "plugins",
		args:    "[-json]",
		summary: "list the drivers, answerers and assertion types this binary has, with what each does",
		doc: `List the plugins registered in this binary — the built-ins, and any a harness
binary built around package cli adds — with each one's documentation: the
names a case can use in "driver", "answerer" and an assertion's "type".`,
		setup: func(fs *flag.FlagSet) action {
			asJSON := jsonFlag(fs, "the plugins (schema lux.plugins/v1)")
			return func(_ context.Context, e *env, args []string) int {
				if len(args) > 0 {
					return e.usageError("plugins", "takes no arguments, got %q", strings.Join(args, " "))
				}
				rep := pluginsReport(e.reg)
				if *asJSON {
					return e.writeJSON(rep)
				}
				writePlugins(e.stdout, rep)
				return ExitOK
			}
		},
	}
}

// PluginsReport is what `lux plugins -json` prints: every registered
// plugin, by kind, sorted by name.
type PluginsReport struct {
	Schema     string       `json:"schema"` // "lux.plugins/v1"
	Drivers    []PluginInfo `json:"drivers"`
	Answerers  []PluginInfo `json:"answerers"`
	Assertions []PluginInfo `json:"assertions"`
	// Hooks are the lifecycle hook plugins (lux.json's "hooks"); absent
	// when none is registered.
	Hooks []PluginInfo `json:"hooks,omitempty"`
}

// PluginInfo describes one registered plugin.
type PluginInfo struct {
	Name string `json:"name"` // what a case names: a driver, an answerer, an assertion type
	Doc  string `json:"doc"`
	// Version is an assertion's grading version.
	Version string `json:"version,omitempty"`
	// Experiments reports that a driver supports controlled experiments.
	Experiments bool `json:"experiments,omitempty"`
	// Harness reports that an answerer or assertion takes the harness
	// model's fields (it calls a model).
	Harness bool `json:"harness,omitempty"`
}

func pluginsReport(reg *lux.Registry) PluginsReport {
	rep := PluginsReport{Schema: "lux.plugins/v1", Drivers: []PluginInfo{}, Answerers: []PluginInfo{}, Assertions: []PluginInfo{}}
	for _, name := range reg.Drivers() {
		if p, err := reg.Driver(name); err == nil {
			rep.Drivers = append(rep.Drivers, PluginInfo{Name: name, Doc: p.Doc, Experiments: p.Experiment != nil})
		}
	}
	for _, name := range reg.Answerers() {
		if p, err := reg.Answerer(name); err == nil {
			rep.Answerers = append(rep.Answerers, PluginInfo{Name: name, Doc: p.Doc, Harness: p.Harness})
		}
	}
	for _, name := range reg.Assertions() {
		if p, err := reg.Assertion(name); err == nil {
			rep.Assertions = append(rep.Assertions, PluginInfo{Name: name, Doc: p.Doc, Version: p.Version, Harness: p.Harness})
		}
	}
	for _, name := range reg.Hooks() {
		if p, err := reg.Hook(name); err == nil {
			rep.Hooks = append(rep.Hooks, PluginInfo{Name: name, Doc: p.Doc, Version: p.Version})
		}
	}
	return rep
}

func writePlugins(w io.Writer, rep PluginsReport) {
	for i, group := range []struct {
		title   string
		plugins []PluginInfo
	}{
		{"Drivers (a case's \"driver\")", rep.Drivers},
		{"Answerers (a case's \"answerer\")", rep.Answerers},
		{"Assertion types (an assertion's \"type\")", rep.Assertions},
		{"Lifecycle hooks (lux.json's \"hooks\")", rep.Hooks},
	} {
		if group.plugins == nil && strings.HasPrefix(group.title, "Lifecycle") {
			continue // a binary without hooks shows no empty section
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:\n", group.title)
		if len(group.plugins) == 0 {
			fmt.Fprintln(w, "  none registered")
		}
		for _, p := range group.plugins {
			var tags []string
			if p.Version != "" {
				tags = append(tags, "version "+p.Version)
			}
			if p.Experiments {
				tags = append(tags, "experiments")
			}
			if p.Harness {
				tags = append(tags, "calls a model")
			}
			head := "  " + p.Name
			if len(tags) > 0 {
				head += " (" + strings.Join(tags, ", ") + ")"
			}
			fmt.Fprintln(w, head)
			for _, line := range wrapWords(p.Doc, 72) {
				fmt.Fprintln(w, "      "+line)
			}
		}
	}
}

// wrapWords breaks s into lines of at most width characters at spaces (a
// longer word stands on its own line).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
