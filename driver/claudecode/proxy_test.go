package claudecode_test

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/luxeval/lux"
	"github.com/luxeval/lux/assertion"
	"github.com/luxeval/lux/modeltest"
	"github.com/luxeval/lux/sandbox"
)

// At landlock+netns, a model endpoint that is not on loopback is reached
// through the harness's HTTP proxy, which the real CLI takes from
// HTTP_PROXY: the model server is put behind an address of this machine
// that the agent's network namespace cannot reach directly.
func TestModelBehindTheSandboxProxy(t *testing.T) {
	if l, refused, _ := sandbox.Available(); l != sandbox.LevelNetns {
		t.Skipf("no landlock+netns here: %v", refused)
	}
	t.Parallel()
	script := modeltest.Script{{Text: "hello through the proxy", Usage: modeltest.Usage{InputTokens: 10, OutputTokens: 3}}}
	srv := modeltest.Start(t, script)
	front := forwarder(t, strings.TrimPrefix(srv.URL(), "http://"))
	res, _ := runCase(t, &lux.Case{
		ID: "proxied", Prompt: "Say hello.",
		Assertions: []lux.AssertionSpec{assertion.RunSucceeded()},
	}, nil, map[string]any{"baseUrl": "http://" + front})
	requirePassed(t, res)
	sb := res.Metadata.Provenance.Sandbox
	require.NotNil(t, sb)
	assert.Equal(t, []string{front + " (through the proxy at 127.0.0.1:3128)"}, sb.Reachable)
	assert.Empty(t, sb.Denied)
}

// forwarder listens on an address of this machine that is not loopback
// and carries each connection to target.
func forwarder(t *testing.T, target string) string {
	t.Helper()
	var ip string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			ip = n.IP.String()
			break
		}
	}
	if ip == "" {
		t.Skip("no address but loopback here")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go io.Copy(up, c)
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String()
}
