package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// case.json written by a newer version, with fields this one does not
// know in the case and in its plugin references, still reads.
func TestReadRunToleratesUnknownFieldsInCaseJSON(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, CaseFile), []byte(`{
		"id": "hello", "prompt": "p", "fieldFromTheFuture": 1,
		"driver": {"name": "subprocess", "config": {"command": "echoagent"}, "pin": "v2"},
		"answerer": {"name": "scripted", "x": {"y": 1}},
		"casePath": "cases/hello.json"
	}`), 0o600))
	got, err := ReadRun(dir)
	require.NoError(t, err)
	require.NotNil(t, got.Case)
	assert.Equal(t, "hello", got.Case.ID)
	assert.Equal(t, "cases/hello.json", got.Case.Path)
	assert.Equal(t, "subprocess", got.Case.Driver.Name)
	assert.JSONEq(t, `{"command": "echoagent"}`, string(got.Case.Driver.Config.(json.RawMessage)))
	assert.Equal(t, "scripted", got.Case.Answerer.Name)
	assert.Nil(t, got.Case.Answerer.Config)

	// What is wrong is still reported, with the file.
	require.NoError(t, os.WriteFile(filepath.Join(dir, CaseFile), []byte(`{"driver": {"name": 3}}`), 0o600))
	_, err = ReadRun(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, CaseFile))
}

// Every reader of case.json gets the same tolerance.
func TestCaseRecordToleratesUnknownRefFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), CaseFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"id":"x","prompt":"p","driver":{"name":"d","pin":1},"answerer":"a","casePath":"c.json"}`), 0o600))
	var c CaseRecord
	require.NoError(t, ReadJSON(path, &c))
	assert.Equal(t, "d", c.Driver.Name)
	assert.Equal(t, "a", c.Answerer.Name)
	assert.Equal(t, "c.json", c.CasePath)
	assert.Equal(t, "p", c.Prompt)

	// The record writes what it reads.
	require.NoError(t, WriteJSON(path, &c))
	var again CaseRecord
	require.NoError(t, ReadJSON(path, &again))
	assert.Equal(t, c, again)
}
