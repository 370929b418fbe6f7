// Package natsutil connects to NATS and creates the JetStream stream and KV bucket
// every service relies on. Creation is idempotent, so services may start in any
// order and any number of them may call Ensure at once.
package natsutil

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// Options of Ensure. The zero value fits one machine; production sets Replicas 3.
type Options struct {
	Replicas int
	// EventsMaxBytes bounds the EVENTS stream. Sized for 6 hours of peak traffic:
	// 50,000 events/s × ~400 B × 21,600 s ≈ 430 GB in production; one machine
	// defaults to 8 GiB and lets the oldest go (analytics keeps up long before that).
	EventsMaxBytes int64
	EventsMaxAge   time.Duration
}

func (o Options) withDefaults() Options {
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.EventsMaxBytes == 0 {
		o.EventsMaxBytes = 8 << 30
	}
	if o.EventsMaxAge == 0 {
		o.EventsMaxAge = 7 * 24 * time.Hour
	}
	return o
}

// Connect dials NATS with reconnects forever, logging state changes.
func Connect(url, name string, log *slog.Logger) (*nats.Conn, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.RetryOnFailedConnect(true),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("nats disconnected", "err", err)
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", "url", c.ConnectedUrl())
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("connect nats %s: %w", url, err)
	}
	return nc, nil
}

// Ensure creates or updates the EVENTS stream and the catalog KV bucket.
func Ensure(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.KeyValue, error) {
	o = o.withDefaults()
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        contract.EventsStream,
		Description: "tracking events from edges and business events from the writer",
		Subjects:    []string{contract.EventsSubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		MaxBytes:    o.EventsMaxBytes,
		MaxAge:      o.EventsMaxAge,
		Discard:     jetstream.DiscardOld,
		Duplicates:  10 * time.Minute,
		Replicas:    o.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure stream %s: %w", contract.EventsStream, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      contract.CatalogBucket,
		Description: "read models served by the edges",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    o.Replicas,
		// Large works carry hundreds of volumes.
		MaxValueSize: 1 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.CatalogBucket, err)
	}
	return kv, nil
}

// IsNotFound reports whether err means a missing key.
func IsNotFound(err error) bool { return errors.Is(err, jetstream.ErrKeyNotFound) }
