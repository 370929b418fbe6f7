// Package trackbundle publishes tracking events to JetStream in bundles: the
// edge's tracking intake and analytics' ingest bench publish through it, so
// the bench measures what the edge sends without linking the edge.
package trackbundle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// Bundler publishes tracking events to EVENTS in bundles (contract.TrackBundleSubject):
// a group commit. While all of its publishes (InFlight) await their acks, the
// calls that arrive wait and then leave together in one message; each call
// returns once the message holding its events is acked. An idle edge sends a
// call's events at once; a busy one sends a few large messages instead of
// one per event, which is what JetStream's cost is counted in (store,
// deliver, ack and the tombstone of every message).
type Bundler struct {
	js       jetstream.JetStream
	maxBytes int
	ackWait  time.Duration
	in       chan *bundleCall
	slots    chan struct{}
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	// Messages and Calls count what was acked: Calls/Messages is the
	// bundle's mean size (edge metrics).
	Messages, Calls atomic.Int64
}

type bundleCall struct {
	ctx   context.Context
	lines []byte // events' JSON, one per line
	done  chan error
}

// gaveUp reports whether the caller stopped waiting (its request timed out):
// such a call is not published, since the page will send its events again
// and a late first try could then land after its retry.
func (c *bundleCall) gaveUp() bool {
	if err := c.ctx.Err(); err != nil {
		c.done <- err
		return true
	}
	return false
}

// Options tune a Bundler; zero values get the defaults noted.
type Options struct {
	InFlight int           // publishes awaiting their ack at once (4)
	MaxBytes int           // body of one message at most (256 KiB; NATS allows 1 MiB)
	AckWait  time.Duration // a publish not acked by then fails its calls (5s)
}

// ErrClosed is returned for calls made after Close.
var ErrClosed = errors.New("tracking publisher closed")

// New starts a Bundler on js; Close stops it.
func New(js jetstream.JetStream, o Options) *Bundler {
	if o.InFlight <= 0 {
		o.InFlight = 4
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 256 << 10
	}
	if o.AckWait <= 0 {
		o.AckWait = 5 * time.Second
	}
	b := &Bundler{js: js, maxBytes: o.MaxBytes, ackWait: o.AckWait,
		in: make(chan *bundleCall, 4096), slots: make(chan struct{}, o.InFlight),
		stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// Close stops gathering; calls not yet published fail with ErrClosed.
func (b *Bundler) Close() {
	b.once.Do(func() { close(b.stop) })
	<-b.done
}

// Publish sends lines (events' JSON, one per line, as contract.EachEventLine
// reads them) and returns once JetStream acked the message holding them.
func (b *Bundler) Publish(ctx context.Context, lines []byte) error {
	if len(lines) > b.maxBytes {
		return fmt.Errorf("tracking call of %d bytes exceeds a bundle (%d)", len(lines), b.maxBytes)
	}
	select {
	case <-b.stop:
		return ErrClosed
	default:
	}
	c := &bundleCall{ctx: ctx, lines: lines, done: make(chan error, 1)}
	select {
	case b.in <- c:
	case <-b.stop:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("queue tracking events: %w", ctx.Err())
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		// The events may still be published; the page sends them again
		// marked as a retry, and analytics keeps one copy.
		return fmt.Errorf("publish tracking events: no ack: %w", ctx.Err())
	}
}

func (b *Bundler) run() {
	defer close(b.done)
	var carry *bundleCall
	reply := func(calls []*bundleCall, err error) {
		for _, c := range calls {
			c.done <- err
		}
	}
	for {
		first := carry
		carry = nil
		if first == nil {
			select {
			case first = <-b.in:
			case <-b.stop:
				b.drain(nil)
				return
			}
		}
		// Wait for a free slot: the calls arriving meanwhile join this message.
		select {
		case b.slots <- struct{}{}:
		case <-b.stop:
			b.drain([]*bundleCall{first})
			return
		}
		var calls []*bundleCall
		size := -1
		if !first.gaveUp() {
			calls, size = append(calls, first), len(first.lines)
		}
	gather:
		for size < b.maxBytes {
			select {
			case c := <-b.in:
				if c.gaveUp() {
					continue
				}
				if len(calls) == 0 {
					calls, size = append(calls, c), len(c.lines)
					continue
				}
				if size+1+len(c.lines) > b.maxBytes {
					carry = c
					break gather
				}
				calls = append(calls, c)
				size += 1 + len(c.lines)
			default:
				break gather
			}
		}
		if len(calls) == 0 {
			<-b.slots
			continue
		}
		body := make([]byte, 0, size)
		for i, c := range calls {
			if i > 0 {
				body = append(body, '\n')
			}
			body = append(body, c.lines...)
		}
		f, err := b.js.PublishMsgAsync(&nats.Msg{Subject: contract.TrackBundleSubject, Data: body})
		if err != nil {
			<-b.slots
			reply(calls, fmt.Errorf("publish %d tracking calls: %w", len(calls), err))
			continue
		}
		go func() {
			var err error
			t := time.NewTimer(b.ackWait)
			select {
			case <-f.Ok():
			case err = <-f.Err():
				err = fmt.Errorf("publish %d tracking calls: %w", len(calls), err)
			case <-t.C:
				err = fmt.Errorf("publish %d tracking calls: no ack in %s", len(calls), b.ackWait)
			}
			t.Stop()
			<-b.slots
			if err == nil {
				b.Messages.Add(1)
				b.Calls.Add(int64(len(calls)))
			}
			reply(calls, err)
		}()
	}
}

// drain fails the given calls and every queued one.
func (b *Bundler) drain(calls []*bundleCall) {
	for _, c := range calls {
		c.done <- ErrClosed
	}
	for {
		select {
		case c := <-b.in:
			c.done <- ErrClosed
		default:
			return
		}
	}
}
