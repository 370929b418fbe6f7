package devstack

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
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

// NATSCluster is a JetStream cluster of embedded servers in this process: R3
// streams and KV buckets need one (a single server refuses replicas > 1).
type NATSCluster struct {
	Nodes []*NATS
}

// StartNATSCluster starts n embedded JetStream servers on free loopback
// ports, each storing under dir/<name>, routed to one another as cluster
// "storefront", and waits until JetStream has a meta leader.
func StartNATSCluster(dir string, n int) (*NATSCluster, error) {
	clientPorts, routePorts := make([]int, n), make([]int, n)
	var routes []*url.URL
	for i := range n {
		var err error
		if clientPorts[i], err = FreePort(); err != nil {
			return nil, err
		}
		if routePorts[i], err = FreePort(); err != nil {
			return nil, err
		}
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", routePorts[i])})
	}
	c := &NATSCluster{}
	for i := range n {
		name := fmt.Sprintf("nats-%d", i+1)
		nd := &NATS{opts: server.Options{
			ServerName: name,
			Host:       "127.0.0.1",
			Port:       clientPorts[i],
			JetStream:  true,
			StoreDir:   filepath.Join(dir, name),
			MaxPayload: 8 << 20,
			NoSigs:     true,
			NoLog:      true,
			Cluster:    server.ClusterOpts{Name: "storefront", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:     routes,
		}}
		// A clustered server is ready for clients before its routes are up;
		// Start only waits for the client port.
		if err := nd.Start(); err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, nd)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, nd := range c.Nodes {
			if nd.Server.JetStreamIsLeader() {
				return c, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Stop()
	return nil, fmt.Errorf("nats cluster of %d: no JetStream meta leader within 30s", n)
}

// URL lists every node's client URL, comma-separated, as NATS_URL takes them.
func (c *NATSCluster) URL() string {
	urls := make([]string, len(c.Nodes))
	for i, nd := range c.Nodes {
		urls[i] = nd.URL
	}
	return strings.Join(urls, ",")
}

// Stop shuts every node down.
func (c *NATSCluster) Stop() {
	for _, nd := range c.Nodes {
		nd.Stop()
	}
}
