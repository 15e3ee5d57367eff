package record

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A record file that cannot be read is a *FileError naming the file and
// what is wrong with it.
func TestFileErrorNamesTheFileAndTheProblem(t *testing.T) {
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.json")
	if err := os.WriteFile(truncated, []byte(`{"a": `), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, problem string
		is                  error
	}{
		{"truncated", truncated, "truncated JSON (ends after 6 bytes)", nil},
		{"missing", filepath.Join(dir, "missing.json"), "file does not exist", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v map[string]any
			err := ReadJSON(tt.path, &v)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FileError", err, err)
			}
			if fe.Path != tt.path || fe.Err.Error() != tt.problem {
				t.Errorf("path %q, problem %q; want %q, %q", fe.Path, fe.Err, tt.path, tt.problem)
			}
			if err.Error() != "record: "+tt.path+": "+tt.problem {
				t.Errorf("text %q", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
		})
	}
}
