package outbox_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/natsutil"
	"storefront/writer/internal/writertest"
)

func connect(t testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	nc, err := natsutil.Connect(url, natsutil.Auth{}, "relay-test", writertest.Log())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}
