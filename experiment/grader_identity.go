package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/harness"
	"github.com/luxeval/lux/internal/command"
	"github.com/luxeval/lux/internal/digest"
)

// graderIdentity is the judge's identity in the manifest — its config's
// hash and its CLI (version, else content hash), and the CLI of every
// rubric that runs a judge of its own — so that a resume never pools
// gradings of another judge.
func (s *state) graderIdentity(ctx context.Context) (map[string]ProfileIdentity, error) {
	j := s.camp.Grader.Judge
	h, err := digest.Value(j)
	if err != nil {
		return nil, fmt.Errorf("experiment: grader.judge: %w", err)
	}
	name := judgeCommand(j)
	ident, err := json.Marshal(command.IdentifyCLI(ctx, name))
	if err != nil {
		return nil, fmt.Errorf("experiment: grader.judge: %w", err)
	}
	pi := ProfileIdentity{Driver: GraderProfile, DriverConfig: h, DriverIdentity: ident}
	own, err := s.rubricJudges(name)
	if err != nil {
		return nil, err
	}
	for _, rj := range own {
		pi.Judges = append(pi.Judges, JudgeIdentity{Assertion: rj.assertion, Command: command.IdentifyCLI(ctx, rj.command)})
	}
	return map[string]ProfileIdentity{GraderProfile: pi}, nil
}

// judgeCommand is the CLI a judge's harness config runs: its command,
// else its provider's.
func judgeCommand(j harness.Config) string {
	switch {
	case j.Command != "":
		return j.Command
	case j.Provider == harness.Codex:
		return "codex"
	}
	return "claude"
}

// rubricJudge is a rubric assertion and the CLI its judge runs.
type rubricJudge struct{ assertion, command string }

// rubricJudges are the judges of the campaign's rubrics, as every
// candidate configures them for every label, whose CLI is not campaign's
// (a rubric config that names its own command or provider, over
// grader.judge as lux run's harness model), sorted and unique.
func (s *state) rubricJudges(campaign string) ([]rubricJudge, error) {
	var parent json.RawMessage
	if !reflect.ValueOf(s.camp.Grader.Judge).IsZero() {
		var err error
		if parent, err = json.Marshal(s.camp.Grader.Judge); err != nil {
			return nil, fmt.Errorf("experiment: grader.judge: %w", err)
		}
	}
	seen := map[rubricJudge]bool{}
	var out []rubricJudge
	for _, cand := range s.cands {
		for _, id := range sortedKeys(s.corp.labels) {
			c, err := s.camp.rubricCase(s.corp.labels[id], cand)
			if err != nil {
				return nil, err
			}
			for _, r := range s.camp.Grader.Rubrics {
				i := slices.IndexFunc(c.Assertions, func(a lux.AssertionSpec) bool { return a.ID == r.Assertion })
				own, err := json.Marshal(c.Assertions[i].Config)
				if err != nil {
					return nil, fmt.Errorf("experiment: rubric %s: %w", r.Assertion, err)
				}
				eff, err := harness.Inherit(parent, own)
				if err != nil {
					return nil, fmt.Errorf("experiment: rubric %s: %w", r.Assertion, err)
				}
				var j harness.Config
				_ = json.Unmarshal(eff, &j) // validated with the assertions
				rj := rubricJudge{r.Assertion, judgeCommand(j)}
				if rj.command != campaign && !seen[rj] {
					seen[rj] = true
					out = append(out, rj)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b rubricJudge) int {
		return strings.Compare(a.assertion+"\x00"+a.command, b.assertion+"\x00"+b.command)
	})
	return out, nil
}
