// Package svc holds the plumbing every service binary shares: configuration from
// flags with environment fallbacks, the slog logger, the signal context, and the
// operational endpoints (/healthz, /readyz, /metrics).
//
// Nothing here is global: each service builds its own logger, registry and
// readiness state, so tests can start several services in one process.
package svc

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Env returns the environment variable name, or def when it is unset or empty.
// Settings that are flags take their variable through Parse instead.
func Env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// NewLogger builds a logger writing JSON (format "json") or text to stderr,
// at level (debug, info, warn, error; LogFlags refuses anything else).
func NewLogger(format, level string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if strings.EqualFold(format, "json") {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// LogFlags registers -log-format and -log-level (env LOG_FORMAT, LOG_LEVEL);
// a format or level it does not know is a parse error.
func LogFlags(fs *flag.FlagSet) (format, level *string) {
	format, level = new(string), new(string)
	*format, *level = "text", "info"
	fs.Func("log-format", "log format: text or json (env LOG_FORMAT)", func(v string) error {
		if !strings.EqualFold(v, "text") && !strings.EqualFold(v, "json") {
			return fmt.Errorf("log format %q: want text or json", v)
		}
		*format = v
		return nil
	})
	fs.Func("log-level", "log level: debug, info, warn, error (env LOG_LEVEL)", func(v string) error {
		var lv slog.Level
		if err := lv.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("log level %q: want debug, info, warn or error", v)
		}
		*level = v
		return nil
	})
	return format, level
}

// SignalContext is cancelled on SIGINT or SIGTERM.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Readiness is a service's readiness state. The zero value is not ready.
type Readiness struct {
	ready  atomic.Bool
	reason atomic.Value // string
}

// Set marks the service ready or not, with a reason shown by /readyz.
func (r *Readiness) Set(ready bool, reason string) {
	r.ready.Store(ready)
	r.reason.Store(reason)
}

// Ready reports readiness and its reason.
func (r *Readiness) Ready() (bool, string) {
	s, _ := r.reason.Load().(string)
	return r.ready.Load(), s
}

// NewRegistry returns a Prometheus registry with the Go and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// OpsMux serves /healthz (alive), /readyz (ready to take traffic, 503 otherwise)
// and /metrics for a net/http service. detail, when set, adds lines to /readyz
// (staleness, lag).
func OpsMux(r *Readiness, reg *prometheus.Registry, detail func() string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		ok, reason := r.Ready()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %s\n", reason)
		} else {
			fmt.Fprintln(w, "ready")
		}
		if detail != nil {
			fmt.Fprint(w, detail())
		}
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}

// Serve runs srv until ctx is done, then shuts it down gracefully within grace.
func Serve(ctx context.Context, srv *http.Server, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", srv.Addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown %s: %w", srv.Addr, err)
	}
	return nil
}
