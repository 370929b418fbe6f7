package devstack

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// NATS is an embedded NATS server with JetStream, running in this process.
type NATS struct {
	URL    string
	Server *server.Server
	opts   server.Options
}

// StartNATS starts an embedded JetStream server on 127.0.0.1:port storing in dir.
func StartNATS(dir string, port int) (*NATS, error) {
	n := &NATS{opts: server.Options{
		ServerName: "storefront",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		// KV values of large works and event batches exceed the 1 MiB default.
		MaxPayload: 8 << 20,
		NoSigs:     true,
		NoLog:      true,
	}}
	if err := n.Start(); err != nil {
		return nil, err
	}
	return n, nil
}

// Start (re)starts the server after Stop, on the same port and store.
func (n *NATS) Start() error {
	opts := n.opts
	s, err := server.NewServer(&opts)
	if err != nil {
		return fmt.Errorf("configure nats: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(20 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("nats on port %d not ready within 20s", n.opts.Port)
	}
	n.Server = s
	n.URL = s.ClientURL()
	return nil
}

// Stop shuts the server down and waits until it is gone.
func (n *NATS) Stop() {
	if n.Server == nil {
		return
	}
	n.Server.Shutdown()
	n.Server.WaitForShutdown()
}
