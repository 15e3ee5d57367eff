package temporal

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExecutorURLsAreCheckedBeforeConnecting(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"temporal://127.0.0.1:7233", "want temporal://HOST:PORT/QUEUE"},
		{"http://127.0.0.1:7233/q", "want temporal://HOST:PORT/QUEUE"},
		{"temporal:///q", "want temporal://HOST:PORT/QUEUE"},
		{"temporal://127.0.0.1:7233/q?heartbeat=soon", `heartbeat: want a positive duration such as 30s, got "soon"`},
		{"temporal://127.0.0.1:7233/q?idle=-1s", `idle: want a positive duration such as 30s, got "-1s"`},
		{"temporal://127.0.0.1:7233/q?attempts=0", `attempts: want a positive number, got "0"`},
	} {
		_, _, err := ExecutorFromURL(context.Background(), tc.url, t.TempDir())
		assert.EqualError(t, err, tc.want, tc.url)
	}
}
