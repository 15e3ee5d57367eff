package mcpprobe_test

import (
	"io"
	"sync"
)

// syncWriter serializes writes to w, for a buffer the stderr copy fills
// while a test reads it.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
