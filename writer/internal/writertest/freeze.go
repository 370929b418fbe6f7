package writertest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// FreezingProxy forwards TCP connections to a server until Freeze: from
// then on it keeps every connection open and accepts new ones but passes no
// byte either way, as a server whose machine froze or a partitioned network
// does (the kernel still holds the connections; nothing answers, nothing
// breaks). Closed when the test ends.
type FreezingProxy struct {
	Addr   string // host:port to connect to instead of the server
	ln     net.Listener
	mu     sync.Mutex
	frozen chan struct{}
	done   chan struct{}
	conns  []net.Conn
}

// NewFreezingProxy forwards a local port to target (host:port).
func NewFreezingProxy(t testing.TB, target string) *FreezingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &FreezingProxy{Addr: ln.Addr().String(), ln: ln, frozen: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			go p.serve(c, target)
		}
	}()
	return p
}

func (p *FreezingProxy) serve(c net.Conn, target string) {
	select {
	case <-p.frozen:
		return // accepted, never answered
	default:
	}
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, s)
	p.mu.Unlock()
	go p.pipe(s, c)
	p.pipe(c, s)
}

// pipe copies src to dst until either fails or the proxy freezes.
func (p *FreezingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-p.frozen:
			<-p.done // hold the bytes and the connection until the test ends
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

// Freeze stops every byte from now on.
func (p *FreezingProxy) Freeze() { close(p.frozen) }

func (p *FreezingProxy) close() {
	close(p.done)
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}
