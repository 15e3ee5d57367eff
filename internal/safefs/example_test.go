package safefs_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/luxeval/lux/internal/safefs"
)

func Example() {
	dir, _ := os.MkdirTemp("", "safefs-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("done"), 0o644)
	_ = os.Symlink("notes.txt", filepath.Join(dir, "link.txt"))

	ws := safefs.Root{Dir: dir, Name: "workspace"}
	data, err := ws.ReadFile("notes.txt", 1<<20)
	fmt.Printf("%s %v\n", data, err)
	_, err = ws.ReadFile("link.txt", 1<<20)
	fmt.Println(err)
	_, err = ws.ReadFile("../etc/passwd", 1<<20)
	fmt.Println(err)
	// Output:
	// done <nil>
	// path "link.txt" goes through a symlink
	// path "../etc/passwd" escapes the workspace
}
