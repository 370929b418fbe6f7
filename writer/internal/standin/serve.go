// Package standin is what the writer's stand-ins for third parties (the
// payment and identity sandboxes) share: serving their API on a port of their
// own, as the real service is another host, and their window's way back to
// the store's page. The stand-ins themselves are listed in package doubles.
package standin

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is a handler served on its own listener (Start).
type Server struct {
	// URL is http://host:port of the listener.
	URL string
	srv *http.Server
}

// Start serves h on addr ("127.0.0.1:0" for a free port) until Close.
func Start(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &Server{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops listening and waits up to 5 s for the requests in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
