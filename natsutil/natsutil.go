// Package natsutil connects to NATS and creates the JetStream stream and KV bucket
// every service relies on. Creation is idempotent, so services may start in any
// order and any number of them may call Ensure at once.
package natsutil

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"storefront/contract"
)

// Options of Ensure. The zero value fits one machine; production sets
// Replicas 3 and sizes EVENTS (see EventsLimits for the arithmetic).
type Options struct {
	Replicas int
	// EventsMaxBytes and EventsMaxAge bound the EVENTS stream (defaults
	// DefaultEventsMaxBytes and DefaultEventsMaxAge).
	EventsMaxBytes int64
	EventsMaxAge   time.Duration
	// Log reports changes Ensure makes to an existing stream (nil = silent).
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.EventsMaxBytes == 0 {
		o.EventsMaxBytes = DefaultEventsMaxBytes
	}
	if o.EventsMaxAge == 0 {
		o.EventsMaxAge = DefaultEventsMaxAge
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Ensure creates or updates the EVENTS stream, the catalog KV bucket and
// its bucket of volume pages (EnsureVolumesKV).
//
// EVENTS keeps what analytics has not processed: interest retention with the
// analytics durable consumer (created here when missing, so that no event is
// published into a stream nobody has interest in), and DiscardNew, so a full
// stream refuses new events (the edge answers 503 and the page keeps its
// batch; the writer's outbox keeps its rows) instead of dropping the oldest
// unprocessed ones.
//
// An existing stream is brought to that shape, and its limits only ever
// grow: a service started with smaller limits (an old default, a forgotten
// flag) leaves them as they are, so services asking for different sizes never
// flip the stream back and forth, and none can shrink it under a backlog.
// Shrinking is an operator's act (nats stream edit).
func Ensure(ctx context.Context, js jetstream.JetStream, o Options) (jetstream.KeyValue, error) {
	o = o.withDefaults()
	if err := ensureEvents(ctx, js, o); err != nil {
		return nil, err
	}
	replicas, err := kvReplicas(ctx, js, o)
	if err != nil {
		return nil, err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      contract.CatalogBucket,
		Description: "read models served by the edges",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		// Large works carry hundreds of volumes.
		MaxValueSize: 1 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("ensure kv %s: %w", contract.CatalogBucket, err)
	}
	// The catalog's heads name pages of this bucket (contract/volumes.go):
	// wherever the catalog exists, so does it.
	if _, err := EnsureVolumesKV(ctx, js); err != nil {
		return nil, err
	}
	// Episode comments (contract/comments.go), published by the same relay.
	if _, err := EnsureCommentsKV(ctx, js); err != nil {
		return nil, err
	}
	return kv, nil
}

// kvReplicas is the catalog bucket's replica count: what o asks for, or
// more when the bucket already has more. Like EVENTS, a bucket only grows: a
// node started without NATS_REPLICAS (asking 1) would otherwise bring an R3
// catalog down to one copy, and the next lost server would lose it.
func kvReplicas(ctx context.Context, js jetstream.JetStream, o Options) (int, error) {
	s, err := js.Stream(ctx, "KV_"+contract.CatalogBucket)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return o.Replicas, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up kv %s: %w", contract.CatalogBucket, err)
	}
	if cur := s.CachedInfo().Config.Replicas; cur > o.Replicas {
		o.Log.Info("catalog bucket keeps more replicas than asked", "replicas", cur, "asked_replicas", o.Replicas)
		return cur, nil
	}
	return o.Replicas, nil
}

// eventsConfig is the EVENTS stream o asks for.
func eventsConfig(o Options) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        contract.EventsStream,
		Description: "tracking events from edges and business events from the writer, until analytics acked them",
		Subjects:    []string{contract.EventsSubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.InterestPolicy,
		MaxBytes:    o.EventsMaxBytes,
		MaxAge:      o.EventsMaxAge,
		Discard:     jetstream.DiscardNew,
		Duplicates:  10 * time.Minute,
		Replicas:    o.Replicas,
	}
}

func ensureEvents(ctx context.Context, js jetstream.JetStream, o Options) error {
	want := eventsConfig(o)
	s, err := js.Stream(ctx, contract.EventsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// Born with limits retention: an interest stream drops what is
		// published while it has no consumer, and another process may
		// publish between this call and the consumer's creation.
		first := want
		first.Retention = jetstream.LimitsPolicy
		s, err = js.CreateStream(ctx, first)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			s, err = js.Stream(ctx, contract.EventsStream)
		}
	}
	if err != nil {
		return fmt.Errorf("ensure stream %s: %w", contract.EventsStream, err)
	}
	if err := ensureAnalyticsConsumer(ctx, js); err != nil {
		return err
	}
	cur := s.CachedInfo().Config
	next := grow(cur, want)
	if sameEvents(cur, next) {
		return nil
	}
	if next.MaxBytes != want.MaxBytes || next.MaxAge != want.MaxAge || next.Replicas != want.Replicas {
		o.Log.Info("EVENTS stream keeps limits larger than asked", "max_bytes", next.MaxBytes, "asked_max_bytes", want.MaxBytes,
			"max_age", next.MaxAge, "asked_max_age", want.MaxAge, "replicas", next.Replicas, "asked_replicas", want.Replicas)
	}
	o.Log.Info("updating EVENTS stream", "retention", next.Retention.String(), "discard", next.Discard.String(),
		"max_bytes", next.MaxBytes, "max_age", next.MaxAge, "replicas", next.Replicas)
	if _, err := js.UpdateStream(ctx, next); err != nil {
		return fmt.Errorf("update stream %s: %w", contract.EventsStream, err)
	}
	return nil
}

// ensureAnalyticsConsumer creates the analytics durable consumer when it is
// missing, with the settings analytics' ingest cannot change later (deliver
// all, explicit acks); ingest.EnsureConsumer sets the rest when it starts.
func ensureAnalyticsConsumer(ctx context.Context, js jetstream.JetStream) error {
	_, err := js.Consumer(ctx, contract.EventsStream, contract.AnalyticsConsumer)
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("look up consumer %s: %w", contract.AnalyticsConsumer, err)
	}
	_, err = js.CreateConsumer(ctx, contract.EventsStream, jetstream.ConsumerConfig{
		Durable:       contract.AnalyticsConsumer,
		Description:   "analytics: EVENTS into ClickHouse",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: contract.EventsSubjectPrefix + ">",
		MaxDeliver:    -1,
	})
	if err != nil && !errors.Is(err, jetstream.ErrConsumerExists) {
		return fmt.Errorf("create consumer %s: %w", contract.AnalyticsConsumer, err)
	}
	return nil
}

// grow is cur brought to want's shape with the larger of each limit.
func grow(cur, want jetstream.StreamConfig) jetstream.StreamConfig {
	next := cur
	next.Description, next.Subjects = want.Description, want.Subjects
	next.Retention, next.Discard, next.Duplicates = want.Retention, want.Discard, want.Duplicates
	// Unlimited is -1 bytes (0 is stored as -1) and 0 age.
	if cur.MaxBytes > 0 && want.MaxBytes > cur.MaxBytes || want.MaxBytes <= 0 {
		next.MaxBytes = want.MaxBytes
	}
	if cur.MaxAge > 0 && want.MaxAge > cur.MaxAge || want.MaxAge <= 0 {
		next.MaxAge = want.MaxAge
	}
	next.Replicas = max(cur.Replicas, want.Replicas)
	return next
}

func sameEvents(a, b jetstream.StreamConfig) bool {
	return a.Description == b.Description && slices.Equal(a.Subjects, b.Subjects) && a.Retention == b.Retention &&
		a.Discard == b.Discard && a.Duplicates == b.Duplicates && a.MaxBytes == b.MaxBytes && a.MaxAge == b.MaxAge &&
		a.Replicas == b.Replicas
}

// IsNotFound reports whether err means a missing key.
func IsNotFound(err error) bool { return errors.Is(err, jetstream.ErrKeyNotFound) }
