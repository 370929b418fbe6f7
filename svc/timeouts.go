package svc

import (
	"flag"
	"net/http"
	"time"
)

// Timeouts bound how long one client may hold a server's connection, so slow
// or stalled clients (slowloris: headers or a body sent a byte at a time, or
// connections kept open and idle) cannot use up a server. Every service sets
// all of them; zero fields take the service's defaults (see Or).
type Timeouts struct {
	// ReadHeader bounds reading the request headers (net/http servers; a
	// fasthttp server's Read covers the headers).
	ReadHeader time.Duration
	// Read bounds reading the whole request, body included.
	Read time.Duration
	// Write bounds the answer: from the end of the request to the end of
	// the answer (net/http), or writing it (fasthttp).
	Write time.Duration
	// Idle bounds a kept-alive connection waiting for its next request.
	Idle time.Duration
}

// Or fills t's zero fields from def.
func (t Timeouts) Or(def Timeouts) Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = def.ReadHeader
	}
	if t.Read <= 0 {
		t.Read = def.Read
	}
	if t.Write <= 0 {
		t.Write = def.Write
	}
	if t.Idle <= 0 {
		t.Idle = def.Idle
	}
	return t
}

// RegisterFlags registers -read-header-timeout (when def has one),
// -read-timeout, -write-timeout and -idle-timeout with the environment
// fallbacks <envPrefix>_READ_HEADER_TIMEOUT and so on.
func (t *Timeouts) RegisterFlags(fs *flag.FlagSet, envPrefix string, def Timeouts) {
	d := func(p *time.Duration, name, env string, v time.Duration, what string) {
		fs.DurationVar(p, name, v, what+" (env "+envPrefix+env+")")
	}
	if def.ReadHeader > 0 {
		d(&t.ReadHeader, "read-header-timeout", "_READ_HEADER_TIMEOUT", def.ReadHeader, "time allowed to read a request's headers")
	}
	d(&t.Read, "read-timeout", "_READ_TIMEOUT", def.Read, "time allowed to read a whole request, body included")
	d(&t.Write, "write-timeout", "_WRITE_TIMEOUT", def.Write, "time allowed to answer a request")
	d(&t.Idle, "idle-timeout", "_IDLE_TIMEOUT", def.Idle, "time a kept-alive connection may wait for its next request")
}

// Apply sets the timeouts of a net/http server.
func (t Timeouts) Apply(srv *http.Server) *http.Server {
	srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = t.ReadHeader, t.Read, t.Write, t.Idle
	return srv
}
