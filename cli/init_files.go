package cli

import (
	"encoding/json"
	"fmt"
)

// The project `lux init` writes: an agent script that speaks the lux line
// protocol (so `lux run` works at once, with nothing to build or install),
// lux.json, cases and their fixtures; with -experiment a subject, cases in
// three splits and a campaign.

// initRunsRoot is the runs root lux.json names, and the line added to
// .gitignore.
const initRunsRoot = ".lux-runs"

// initFile is one file (or, with dir, directory) of the scaffold.
type initFile struct {
	path    string // slash-separated, relative to the project directory
	dir     bool
	mode    uint32
	content string
}

// initAgent is the example agent: a POSIX shell script, so a project
// outside this repository needs no Go build and no PATH setup.
const initAgent = `#!/bin/sh
# An example agent that speaks the lux line protocol (PROTOCOL.md of
# github.com/luxeval/lux): one JSON event per line on stdout. It needs no
# model: it follows its prompt literally, one instruction per line (a
# period after the closing quote is allowed):
#
#   write PATH containing "TEXT"   writes TEXT and a newline to PATH in the workspace
#   say "TEXT"                     reports TEXT as an agent message
#   fail "REASON"                  ends the run in error
#
# With AGENT_INSTRUCTIONS naming a file (the way a real agent reads its
# AGENTS.md), that file's instructions are followed before the prompt's.
# Replace this script with your agent, or point lux.json's defaultDriver
# at a real one (lux plugins lists the drivers).
set -u
n=0
out=0

# esc quotes $1 for a JSON string (TEXT holds no control characters).
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

message() {
	n=$((n + 1))
	printf '{"type":"progress","id":"m%d","kind":"agent-message","payload":{"text":"%s"}}\n' "$n" "$(esc "$1")"
}

write() { # write PATH TEXT
	n=$((n + 1))
	printf '{"type":"progress","id":"c%d","kind":"tool-call","payload":{"name":"Write","toolUseId":"t%d","input":{"path":"%s","content":"%s"}}}\n' \
		"$n" "$n" "$(esc "$1")" "$(esc "$2")"
	case $1 in
	/* | .. | ../* | */../* | */..) result="$1 is outside the workspace" error=true ;;
	*)
		if mkdir -p "$(dirname -- "$1")" && printf '%s\n' "$2" >"$1"; then
			result="wrote $1" error=false
			out=$((out + ${#2}))
		else
			result="could not write $1" error=true
		fi
		;;
	esac
	printf '{"type":"progress","id":"r%d","kind":"tool-result","payload":{"name":"Write","toolUseId":"t%d","text":"%s","isError":%s}}\n' \
		"$n" "$n" "$(esc "$result")" "$error"
}

follow() { # follows the instructions on stdin
	while IFS= read -r line || [ -n "$line" ]; do
		line=$(printf '%s' "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; s/"\.$/"/')
		case $line in
		'') ;;
		[Ww]'rite '*' containing "'*'"')
			path=${line#?rite }
			path=${path%% containing \"*}
			text=${line#* containing \"}
			write "$path" "${text%\"}"
			;;
		[Ss]'ay "'*'"')
			text=${line#?ay \"}
			message "${text%\"}"
			;;
		[Ff]'ail "'*'"')
			text=${line#?ail \"}
			printf '{"type":"error","reason":"%s"}\n' "$(esc "${text%\"}")"
			exit 0
			;;
		*) message "I do not know how to: $line" ;;
		esac
	done
}

printf '{"type":"ready","agentId":"example-agent","agentVersion":"1.0.0","model":"rules"}\n'
cd "${LUX_ARTIFACTS_DIR:-.}" || exit 1
in=0
if [ -n "${AGENT_INSTRUCTIONS:-}" ]; then
	follow <"$AGENT_INSTRUCTIONS"
	in=$(wc -c <"$AGENT_INSTRUCTIONS")
fi
follow <"$LUX_PROMPT_FILE"
in=$((in + $(wc -c <"$LUX_PROMPT_FILE")))
# Made-up token counts, about one per four bytes read and written.
printf '{"type":"done","summary":{"usage":{"input":%d,"output":%d,"cacheRead":0,"cacheCreation":0},"turns":%d}}\n' \
	$(((in + 3) / 4)) $(((out + 3) / 4)) "$n"
`

const initProject = `{
  "runsRoot": "` + initRunsRoot + `",
  "casesRoot": "cases",
  "defaultDriver": {
    "name": "subprocess",
    "config": {"command": "agent/agent.sh", "idleTimeout": "30s"}
  }
}
`

const initHelloCase = `{
  "id": "hello",
  "prompt": "write hello.txt containing \"Hello, lux!\"",
  "assertions": [
    {"type": "run-succeeded"},
    {"type": "file-contains", "id": "greeting", "path": "hello.txt", "text": "Hello, lux!"},
    {"type": "tool-called", "tool": "Write"}
  ]
}
`

const initNotesCase = `{
  "id": "notes-summary",
  "prompt": "say \"I read the notes.\"\nwrite SUMMARY.md containing \"The notes ask for a summary.\"",
  "fixtures": "../fixtures/notes",
  "assertions": [
    {"type": "run-succeeded"},
    {"type": "file-exists", "id": "fixture-staged", "path": "README.md"},
    {"type": "file-contains", "id": "summary", "path": "SUMMARY.md", "text": "summary", "weight": 2}
  ]
}
`

const initNotes = `# notes

The agent finds this file in its workspace: the case's fixtures are copied
there before every run. Write a summary of these notes.
`

// The experiment: the subject is the instructions file the agent follows
// before every task. As scaffolded it says to indent with spaces, so the
// cases that check the house style (tabs) fail; the campaign's variant
// fixes it, and the experiment promotes it only if it holds up on the
// validation and test cases.
const (
	initCampaignPath = "experiment/house-style.experiment.json"
	initSubject      = "write STYLE.md containing \"indent with spaces\"\n"
	initFixedSubject = "write STYLE.md containing \"indent with tabs\"\n"
)

// initSplitCases are the experiment's cases: file name, output file and
// its text, per split. Validation and test have 6 cases each, the fewest
// with which a pass-rate effect ≥ 0 at 95 % (t) can be decided.
var initSplitCases = map[string][][3]string{
	"train": {
		{"readme", "README.md", "# project"},
		{"notes", "NOTES.md", "first notes"},
	},
	"validation": {
		{"config", "config.yaml", "debug: false"},
		{"go-file", "main.go", "package main"},
		{"license", "LICENSE", "MIT License"},
		{"makefile", "Makefile", "all: build"},
		{"script", "run.sh", "echo run"},
		{"todo", "TODO.md", "- write tests"},
	},
	"test": {
		{"changelog", "CHANGELOG.md", "## 1.0.0"},
		{"authors", "AUTHORS", "the team"},
		{"env", "example.env", "PORT=8080"},
		{"editorconfig", "editorconfig.txt", "root = true"},
		{"docs", "docs/index.md", "# docs"},
		{"version", "VERSION", "1.0.0"},
	},
}

// initSplitCase is one experiment case: the task, and the house style
// that the subject's instructions decide.
func initSplitCase(split string, c [3]string) string {
	doc := map[string]any{
		"id":     split + "-" + c[0],
		"prompt": fmt.Sprintf("write %s containing %q", c[1], c[2]),
		"assertions": []map[string]any{
			{"type": "run-succeeded"},
			{"type": "file-contains", "id": "output", "path": c[1], "text": c[2]},
			{"type": "file-contains", "id": "house-style", "path": "STYLE.md", "text": "tabs"},
		},
	}
	return initJSON(doc)
}

func initCampaign() string {
	doc := map[string]any{
		"id":      "house-style",
		"subject": map[string]any{"root": "subject", "mutable": []string{"AGENTS.md"}},
		"profiles": map[string]any{
			"example-agent": map[string]any{
				"driver": map[string]any{"name": "subprocess", "config": map[string]any{
					// Relative to the working directory: run lux in the
					// project directory.
					"command":     "agent/agent.sh",
					"idleTimeout": "30s",
					"env":         map[string]string{"AGENT_INSTRUCTIONS": "{{lux.subjectRoot}}/AGENTS.md"},
				}},
			},
		},
		"splits": map[string]any{
			"train":      map[string]any{"patterns": []string{"cases/train"}},
			"validation": map[string]any{"patterns": []string{"cases/validation"}},
			"test":       map[string]any{"patterns": []string{"cases/test"}},
		},
		"repetitions": map[string]any{"promotion": 1},
		"variants": []map[string]any{{
			"id":    "tabs",
			"name":  "the house style says tabs",
			"files": map[string]string{"AGENTS.md": initFixedSubject},
		}},
		"objectives": map[string]any{
			"constraints": []map[string]any{
				{"metric": "quality.passRate", "relativeTo": "baseline", "min": 0, "confidence": map[string]any{"method": "t", "level": 0.95}},
				{"metric": "quality.passRate", "split": "test", "relativeTo": "baseline", "min": 0, "confidence": map[string]any{"method": "t", "level": 0.95}},
			},
		},
		"budget": map[string]any{"maxRuns": 100},
	}
	return initJSON(doc)
}

// initJSON is v as indented JSON, for a file of the scaffold.
func initJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // static data
	}
	return string(b) + "\n"
}

// initFiles returns the scaffold, parents before children.
func initFiles(experiment bool) []initFile {
	fs := []initFile{
		{path: "lux.json", mode: 0o644, content: initProject},
		{path: "agent", dir: true},
		{path: "agent/agent.sh", mode: 0o755, content: initAgent},
		{path: "cases", dir: true},
		{path: "cases/hello.case.json", mode: 0o644, content: initHelloCase},
		{path: "cases/notes.case.json", mode: 0o644, content: initNotesCase},
		{path: "fixtures", dir: true},
		{path: "fixtures/notes", dir: true},
		{path: "fixtures/notes/README.md", mode: 0o644, content: initNotes},
	}
	if !experiment {
		return fs
	}
	fs = append(fs,
		initFile{path: "experiment", dir: true},
		initFile{path: "experiment/subject", dir: true},
		initFile{path: "experiment/subject/AGENTS.md", mode: 0o644, content: initSubject},
		initFile{path: "experiment/cases", dir: true},
	)
	for _, split := range []string{"train", "validation", "test"} {
		fs = append(fs, initFile{path: "experiment/cases/" + split, dir: true})
		for _, c := range initSplitCases[split] {
			fs = append(fs, initFile{path: "experiment/cases/" + split + "/" + c[0] + ".case.json", mode: 0o644, content: initSplitCase(split, c)})
		}
	}
	return append(fs, initFile{path: initCampaignPath, mode: 0o644, content: initCampaign()})
}
