package natsutil

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Sizing of the EVENTS stream.
//
// The stream buffers every event analytics has not processed yet (interest
// retention: an event leaves once analytics acked it). It must hold at least
// 6 hours of peak traffic, so that an analytics or ClickHouse outage that long
// loses nothing. The arithmetic, with the stored size of an event measured by
// TestStoredBytesPerEvent (a typical page view as the edge publishes it: 438
// bytes of JSON, 558 bytes stored with its subject, Nats-Msg-Id header and the
// file store's framing; 700 leaves room for longer URLs and props):
//
//	bytes = peak events/s × stored bytes per event × seconds to absorb
//	      = 50,000 × 700 × 21,600 (6 h) = 756 GB (704 GiB) per replica
//
// Production sets EVENTS_PEAK_RATE=50000 (and EVENTS_BUFFER, EVENTS_EVENT_BYTES
// if they differ) or EVENTS_MAX_BYTES directly, the same on every service that
// ensures the stream (edge, writer, analytics), and gives each NATS server's
// JetStream that much file storage (max_file_store) plus the KV bucket's.
// One machine defaults to DefaultEventsMaxBytes.
const (
	// DefaultEventsMaxBytes is the one-machine default: small enough for a
	// laptop disk, and still millions of events (hours of what one machine
	// produces) before the edges answer 503.
	DefaultEventsMaxBytes = 4 << 30
	// DefaultEventsMaxAge bounds how long an unprocessed event waits: far
	// beyond any outage the byte limit absorbs at peak.
	DefaultEventsMaxAge = 7 * 24 * time.Hour
	// DefaultEventsBuffer is how long the stream must absorb peak traffic
	// with analytics down (the 6 hours).
	DefaultEventsBuffer = 6 * time.Hour
	// DefaultEventBytes is the stored size of one event assumed when sizing
	// from a peak rate (measured 558 for a page view, plus headroom).
	DefaultEventBytes = 700
)

// EventsLimits is how an operator sizes the EVENTS stream. Every service that
// ensures the stream registers these flags, so they all ask for the same
// limits; Ensure never shrinks a stream anyway (see Ensure).
type EventsLimits struct {
	// MaxBytes (EVENTS_MAX_BYTES, e.g. "4GiB", "756GB", "1000000") wins when set.
	MaxBytes int64
	// PeakRate (EVENTS_PEAK_RATE, events/s): when set and MaxBytes is not,
	// MaxBytes = PeakRate × EventBytes × Buffer.
	PeakRate   int
	Buffer     time.Duration // EVENTS_BUFFER, default 6h
	EventBytes int           // EVENTS_EVENT_BYTES, default 700
	// MaxAge (EVENTS_MAX_AGE): unprocessed events older than this are dropped.
	MaxAge time.Duration
}

// RegisterFlags registers the -events-* flags with their env fallbacks
// (applied by svc.Parse).
func (l *EventsLimits) RegisterFlags(fs *flag.FlagSet) {
	fs.Func("events-max-bytes", "size of the EVENTS stream, e.g. 4GiB or 756GB; default from -events-peak-rate, else 4GiB (env EVENTS_MAX_BYTES)", func(v string) error {
		n, err := ParseBytes(v)
		if err != nil {
			return err
		}
		l.MaxBytes = n
		return nil
	})
	fs.IntVar(&l.PeakRate, "events-peak-rate", 0, "peak events/s to size the EVENTS stream for (with -events-buffer and -events-event-bytes) when -events-max-bytes is not set (env EVENTS_PEAK_RATE)")
	fs.DurationVar(&l.Buffer, "events-buffer", DefaultEventsBuffer, "how long the EVENTS stream must absorb peak traffic with analytics down (env EVENTS_BUFFER)")
	fs.IntVar(&l.EventBytes, "events-event-bytes", DefaultEventBytes, "stored bytes per event assumed by -events-peak-rate (env EVENTS_EVENT_BYTES)")
	fs.DurationVar(&l.MaxAge, "events-max-age", DefaultEventsMaxAge, "unprocessed events older than this leave the EVENTS stream (env EVENTS_MAX_AGE)")
}

// Bytes is the stream size the limits ask for.
func (l EventsLimits) Bytes() int64 {
	switch {
	case l.MaxBytes > 0:
		return l.MaxBytes
	case l.PeakRate > 0:
		buf, per := l.Buffer, int64(l.EventBytes)
		if buf <= 0 {
			buf = DefaultEventsBuffer
		}
		if per <= 0 {
			per = DefaultEventBytes
		}
		return int64(l.PeakRate) * per * int64(buf/time.Second)
	}
	return DefaultEventsMaxBytes
}

// Options are the Ensure options of these limits.
func (l EventsLimits) Options(replicas int) Options {
	return Options{Replicas: replicas, EventsMaxBytes: l.Bytes(), EventsMaxAge: l.MaxAge}
}

// ParseBytes reads a size: a number of bytes, optionally followed by a unit,
// binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB; K, M, G, T too).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToUpper(strings.TrimSpace(t[i:]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q: want a positive number of bytes with an optional unit (GiB, GB, ...)", s)
	}
	mult := map[string]int64{"": 1, "B": 1,
		"K": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9, "T": 1e12, "TB": 1e12,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("bad size %q: unknown unit %q", s, unit)
	}
	if n > (1<<63-1)/mult {
		return 0, fmt.Errorf("bad size %q: too large", s)
	}
	return n * mult, nil
}
