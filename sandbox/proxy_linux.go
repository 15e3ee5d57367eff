package sandbox

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxDenied bounds the refusals a run's record lists.
const maxDenied = 20

// bridge serves a run's listeners: the helper opens them inside the
// run's network namespace (a socket stays in the namespace it was made
// in) and sends them over conn; the harness accepts on them and carries
// each connection to its route's target, or through the HTTP proxy to an
// allowed host.
type bridge struct {
	run    *Run
	routes []route
	allow  map[string]bool
	meter  meter
	conn   *net.UnixConn // the harness's end of the socketpair
	child  *os.File      // the helper's end: cmd.Start may still read it when the listeners come, so it is closed with the bridge

	mu     sync.Mutex
	closed bool
	lns    []net.Listener
	srvs   []*http.Server
	conns  map[net.Conn]bool
}

// serve receives the listeners and serves them until close.
func (b *bridge) serve() {
	buf, oob := make([]byte, 64+len(b.routes)), make([]byte, syscall.CmsgSpace(4*len(b.routes)))
	n, oobn, _, _, err := b.conn.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		return // the helper failed before it sent them, and said why
	}
	var fds []int
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := syscall.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	opened := strings.TrimSpace(string(buf[:n]))
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, rt := range b.routes {
		if i >= len(opened) || opened[i] != '1' || len(fds) == 0 {
			continue
		}
		f := os.NewFile(uintptr(fds[0]), "lux-listener")
		fds = fds[1:]
		ln, err := net.FileListener(f)
		_ = f.Close()
		if err != nil {
			continue
		}
		if b.closed {
			_ = ln.Close()
			continue
		}
		b.lns = append(b.lns, ln)
		if rt.Target == "" {
			srv := b.server()
			go func() { _ = srv.Serve(ln) }()
			continue
		}
		go b.forward(ln, rt.Target)
	}
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// server is a new HTTP proxy server, closed with the bridge: an idle
// connection it keeps would keep the run's network namespace alive.
func (b *bridge) server() *http.Server {
	srv := &http.Server{Handler: http.HandlerFunc(b.proxy), ReadHeaderTimeout: time.Minute, IdleTimeout: 30 * time.Second}
	b.srvs = append(b.srvs, srv) // b.mu is held by serve
	return srv
}

// track keeps c to be closed with the bridge; false when it is closed.
func (b *bridge) track(c net.Conn, on bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if on && b.closed {
		return false
	}
	if b.conns == nil {
		b.conns = map[net.Conn]bool{}
	}
	if on {
		b.conns[c] = true
	} else {
		delete(b.conns, c)
	}
	return true
}

// forward carries each connection on ln to target.
func (b *bridge) forward(ln net.Listener, target string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			up, err := net.DialTimeout("tcp", target, 30*time.Second)
			if err != nil {
				_ = c.Close()
				return
			}
			w := b.meter.watch()
			defer w.Close()
			b.pipe(c, io.TeeReader(up, w), up)
		}()
	}
}

// pipe copies both ways between x and y until both ends are done; what
// y sends is read from ys (y itself, or a reader of it).
func (b *bridge) pipe(x net.Conn, ys io.Reader, y net.Conn) {
	if !b.track(x, true) || !b.track(y, true) {
		_, _ = x.Close(), y.Close()
		return
	}
	defer func() { b.track(x, false); b.track(y, false); _, _ = x.Close(), y.Close() }()
	done := make(chan struct{}, 2)
	cp := func(dst net.Conn, src io.Reader) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(x, ys)
	cp(y, x)
	<-done
}

// proxy is the HTTP proxy inside the run's namespace: CONNECT to an
// allowed host:port (HTTPS), or a plain HTTP request to one; anything
// else is refused with 403 and the run's record lists it.
func (b *bridge) proxy(w http.ResponseWriter, r *http.Request) {
	hostport := r.Host
	if r.Method != http.MethodConnect {
		hostport = r.URL.Host
		if r.URL.Port() == "" {
			hostport = net.JoinHostPort(r.URL.Hostname(), "80")
		}
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || !b.allow[net.JoinHostPort(strings.ToLower(host), port)] {
		what := r.Method + " " + hostport
		if r.Method != http.MethodConnect {
			what = r.Method + " " + r.URL.Scheme + "://" + hostport
		}
		b.deny("the proxy refused " + what + " (not an allowed host)")
		http.Error(w, "lux sandbox: "+hostport+" is not an allowed host (sandbox allowHosts)", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		up, err := net.DialTimeout("tcp", hostport, 30*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			_ = up.Close()
			http.Error(w, "no hijacking", http.StatusInternalServerError)
			return
		}
		c, rw, err := hj.Hijack()
		if err != nil {
			_ = up.Close()
			return
		}
		_, _ = rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
		_ = rw.Flush()
		if n := rw.Reader.Buffered(); n > 0 {
			pending, _ := rw.Reader.Peek(n)
			_, _ = up.Write(pending)
		}
		b.pipe(c, up, up)
		return
	}
	out := r.Clone(context.WithoutCancel(r.Context()))
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := proxyTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	// The body is metered as the forwarded endpoints' responses are.
	pw := b.meter.body(resp.Header)
	_, _ = io.Copy(flushWriter{w}, io.TeeReader(resp.Body, pw))
	_ = pw.Close()
}

// proxyTransport reaches the allowed hosts directly.
var proxyTransport = &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext, ForceAttemptHTTP2: false}

type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}

// deny adds what was refused to the run's record.
func (b *bridge) deny(what string) {
	r := b.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info == nil || len(r.info.Denied) >= maxDenied || containsString(r.info.Denied, what) {
		return
	}
	r.info.Denied = append(r.info.Denied, what)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// close stops the listeners and the connections they carry.
func (b *bridge) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	for _, ln := range b.lns {
		_ = ln.Close()
	}
	for c := range b.conns {
		_ = c.Close()
	}
	srvs := b.srvs
	b.mu.Unlock()
	for _, srv := range srvs {
		_ = srv.Close()
	}
	// The agent has ended: what its last responses counted is in the
	// record once this returns.
	b.meter.wait(2 * time.Second)
	_ = b.conn.Close()
	_ = b.child.Close()
}
