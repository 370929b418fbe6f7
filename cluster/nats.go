package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"storefront/devstack"
)

// natsConfig is one node's nats-server configuration: a JetStream file store
// under the node's folder, routes to every node (its own included, which the
// server skips). Server names stay the same across starts, so the stored
// stream and bucket replicas keep their peers when ports change.
const natsConfig = `server_name: %q
listen: "127.0.0.1:%d"
max_payload: 8MB
jetstream { store_dir: %q }
cluster {
  name: storefront
  listen: "127.0.0.1:%d"
  routes: [%s]
}
`

// startNATS writes the configurations of n nodes under dir and starts them
// as nats-server processes, then waits until JetStream has a meta leader.
func startNATS(ctx context.Context, dir string, n int, cmd []string) ([]*Proc, error) {
	clients, routes := make([]int, n), make([]int, n)
	var urls []string
	for i := range n {
		var err error
		if clients[i], err = devstack.FreePort(); err != nil {
			return nil, err
		}
		if routes[i], err = devstack.FreePort(); err != nil {
			return nil, err
		}
		urls = append(urls, fmt.Sprintf("%q", fmt.Sprintf("nats://127.0.0.1:%d", routes[i])))
	}
	var nodes []*Proc
	for i := range n {
		name := fmt.Sprintf("nats-%d", i+1)
		nd := filepath.Join(dir, name)
		if err := os.MkdirAll(nd, 0o755); err != nil {
			return nil, fmt.Errorf("create %s folder: %w", name, err)
		}
		conf := filepath.Join(nd, "nats.conf")
		body := fmt.Sprintf(natsConfig, name, clients[i], filepath.Join(nd, "jetstream"), routes[i], strings.Join(urls, ", "))
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			return nil, fmt.Errorf("write %s config: %w", name, err)
		}
		p := &Proc{Name: name, Addr: fmt.Sprintf("127.0.0.1:%d", clients[i]),
			Command: append(append([]string(nil), cmd...), "-c", conf), LogPath: filepath.Join(nd, "nats.log")}
		p.Ready = func(ctx context.Context) error {
			nc, err := nats.Connect("nats://"+p.Addr, nats.Timeout(time.Second), nats.NoReconnect())
			if err != nil {
				return err
			}
			nc.Close()
			return nil
		}
		// A clustered server takes clients before its routes are up, so the
		// nodes start one after the other without waiting for each other.
		if err := p.Start(ctx); err != nil {
			stopAll(nodes)
			return nil, err
		}
		nodes = append(nodes, p)
	}
	if err := waitMetaLeader(ctx, natsURL(nodes)); err != nil {
		stopAll(nodes)
		return nil, err
	}
	return nodes, nil
}

func natsURL(nodes []*Proc) string {
	var us []string
	for _, p := range nodes {
		us = append(us, "nats://"+p.Addr)
	}
	return strings.Join(us, ",")
}

// waitMetaLeader waits until JetStream answers account info, which it does
// only once the cluster elected a meta leader.
func waitMetaLeader(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	nc, err := nats.Connect(url)
	if err != nil {
		return fmt.Errorf("connect to nats cluster: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := js.AccountInfo(actx)
		acancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nats cluster: no JetStream meta leader: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StreamLeader returns the index in c.NATS of the node that leads stream.
func (c *Cluster) StreamLeader(ctx context.Context, stream string) (int, error) {
	nc, err := nats.Connect(c.NATSURL)
	if err != nil {
		return -1, fmt.Errorf("connect to nats cluster: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return -1, err
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return -1, fmt.Errorf("stream %s: %w", stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return -1, fmt.Errorf("stream %s info: %w", stream, err)
	}
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return -1, fmt.Errorf("stream %s has no leader", stream)
	}
	for i, p := range c.NATS {
		if p.Name == info.Cluster.Leader {
			return i, nil
		}
	}
	return -1, fmt.Errorf("stream %s led by unknown server %q", stream, info.Cluster.Leader)
}

func stopAll(ps []*Proc) {
	for i := len(ps) - 1; i >= 0; i-- {
		ps[i].Stop()
	}
}
