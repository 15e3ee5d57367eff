package proc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/luxeval/lux/internal/proc"
)

func ExampleRun() {
	res, err := proc.Run(context.Background(), proc.Spec{
		Path:      "/bin/sh",
		Args:      []string{"-c", "echo hello; echo oops >&2; exit 2"},
		Timeout:   time.Minute,
		MaxOutput: 1 << 20,
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("%s stdout=%q stderr=%q timedOut=%v\n", res.Status, res.Stdout, res.Stderr, res.TimedOut)
	// Output: code=2, signal=none stdout="hello\n" stderr="oops\n" timedOut=false
}
