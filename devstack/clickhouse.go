package devstack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// ClickHouse is a ClickHouse server owned by this process. It runs on Debian's
// ClickHouse 18.16 (clickhouse-server) and on current releases (clickhouse server).
type ClickHouse struct {
	// URL is the native-protocol address of the default database, as clickhouse-go takes it.
	URL string
	// HTTPURL is the HTTP interface, for /ping and ad-hoc queries.
	HTTPURL  string
	TCPPort  int
	HTTPPort int
	dir      string
	log      *slog.Logger
	p        *proc
}

// ReadOnlyUser and ReadOnlyPassword name the analysts' read-only account that
// every devstack ClickHouse has.
const (
	ReadOnlyUser     = "analyst"
	ReadOnlyPassword = "analyst"
)

var chConfig = template.Must(template.New("config").Parse(`<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{{.Dir}}/log/server.log</log><errorlog>{{.Dir}}/log/error.log</errorlog><size>50M</size><count>2</count></logger>
  <http_port>{{.HTTPPort}}</http_port>
  <tcp_port>{{.TCPPort}}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>{{.Dir}}/data/</path>
  <tmp_path>{{.Dir}}/tmp/</tmp_path>
  <user_files_path>{{.Dir}}/user_files/</user_files_path>
  <format_schema_path>{{.Dir}}/format_schemas/</format_schema_path>
  <users_config>{{.Dir}}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <max_concurrent_queries>200</max_concurrent_queries>
  <max_connections>1024</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <timezone>UTC</timezone>
{{- if .ZooKeeper}}
  <zookeeper><node><host>127.0.0.1</host><port>{{.ZooKeeper}}</port></node></zookeeper>
  <macros><shard>1</shard><replica>{{.Replica}}</replica></macros>
  <interserver_http_port>{{.InterserverPort}}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <remote_servers><{{.Cluster}}><shard><internal_replication>true</internal_replication>
{{- range .Peers}}
    <replica><host>127.0.0.1</host><port>{{.}}</port></replica>
{{- end}}
  </shard></{{.Cluster}}></remote_servers>
{{- end}}
</yandex>
`))

const chUsers = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>4000000000</max_memory_usage><load_balancing>random</load_balancing></default>
    <readonly><readonly>1</readonly><max_memory_usage>2000000000</max_memory_usage></readonly>
  </profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default>
    <analyst><password>analyst</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>readonly</profile><quota>default</quota></analyst>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`

// clickhouseCommand returns the command line that starts a server with config.
func clickhouseCommand(config string) ([]string, error) {
	if b := os.Getenv("CLICKHOUSE_BIN"); b != "" {
		return []string{b, "server", "--config-file=" + config}, nil
	}
	for _, name := range []string{"clickhouse-server", "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return []string{p, "--config-file=" + config}, nil
		}
	}
	if p, err := exec.LookPath("clickhouse"); err == nil {
		return []string{p, "server", "--config-file=" + config}, nil
	}
	return nil, fmt.Errorf("no ClickHouse server found (install clickhouse-server or set CLICKHOUSE_BIN)")
}

// StartClickHouse writes a configuration into dir and starts a server on the
// given ports. Data persists in dir/data across restarts.
func StartClickHouse(ctx context.Context, dir string, tcpPort, httpPort int, log *slog.Logger) (*ClickHouse, error) {
	return startClickHouse(ctx, dir, map[string]any{"TCPPort": tcpPort, "HTTPPort": httpPort}, log)
}

// ClusterName is the cluster every devstack replica set is named in its
// servers' remote_servers: what Distributed tables (and analytics'
// CLICKHOUSE_CLUSTER) name.
const ClusterName = "storefront"

// ClickHouseCluster is a ZooKeeper and n ClickHouse replicas of one shard,
// each configured with macros {shard} = 1 and {replica} = r1..rn (the paths
// of ReplicatedMergeTree) and with every replica in remote_servers as cluster
// ClusterName (internal_replication: a Distributed table reads one live
// replica of the shard and leaves copying to the replicated tables).
type ClickHouseCluster struct {
	Name      string
	ZooKeeper *ZooKeeper
	Replicas  []*ClickHouse
}

// StartClickHouseCluster starts ZooKeeper and n replicas under dir (zk, r1,
// r2, ...). With basePort 0 every port is a free one; otherwise ZooKeeper
// listens on basePort and replica i (from 0) on basePort+1+3i (native),
// +2+3i (HTTP) and +3+3i (interserver), for a command with fixed ports. On
// error whatever started is stopped again.
//
// Free ports are only free when asked: between FreePort and a server's
// bind, another test package running alongside may take one (a fresh-clone
// CI once lost a replica that way, exit status 70). So with basePort 0 a
// cluster that fails to start is started again, on new ports in a clean
// directory, up to three times.
func StartClickHouseCluster(ctx context.Context, dir string, n, basePort int, log *slog.Logger) (*ClickHouseCluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("clickhouse cluster: %d replicas", n)
	}
	if basePort != 0 {
		return startClickHouseCluster(ctx, dir, n, basePort, log)
	}
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		try := filepath.Join(dir, fmt.Sprintf("try%d", attempt))
		var c *ClickHouseCluster
		if c, err = startClickHouseCluster(ctx, try, n, 0, log); err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			break
		}
		log.Warn("clickhouse cluster did not start, trying again on new ports", "attempt", attempt, "err", err)
	}
	return nil, err
}

func startClickHouseCluster(ctx context.Context, dir string, n, basePort int, log *slog.Logger) (*ClickHouseCluster, error) {
	ports := make([]int, 1+3*n)
	for i := range ports {
		if basePort != 0 {
			ports[i] = basePort + i
			continue
		}
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	c := &ClickHouseCluster{Name: ClusterName}
	zk, err := StartZooKeeper(ctx, filepath.Join(dir, "zk"), ports[0], log)
	if err != nil {
		return nil, err
	}
	c.ZooKeeper = zk
	peers := make([]int, n)
	for i := range peers {
		peers[i] = ports[1+3*i]
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("r%d", i+1)
		ch, err := startClickHouse(ctx, filepath.Join(dir, name), map[string]any{"TCPPort": ports[1+3*i], "HTTPPort": ports[2+3*i],
			"InterserverPort": ports[3+3*i], "ZooKeeper": zk.Port, "Replica": name, "Cluster": c.Name, "Peers": peers}, log)
		if err != nil {
			_ = c.Stop()
			return nil, fmt.Errorf("clickhouse replica %s: %w", name, err)
		}
		c.Replicas = append(c.Replicas, ch)
	}
	return c, nil
}

// URL is a clickhouse-go URL naming every replica (the first reachable one
// answers): what a client that must outlive one replica connects to.
func (c *ClickHouseCluster) URL() string { return c.URLFrom(0) }

// URLFrom is URL with replica i first and the others after it: the URL of
// an analytics node whose own replica is i (it inserts there while that
// replica is up, into the next one while it is down).
func (c *ClickHouseCluster) URLFrom(i int) string {
	hosts := make([]string, len(c.Replicas))
	for j := range c.Replicas {
		hosts[j] = fmt.Sprintf("127.0.0.1:%d", c.Replicas[(i+j)%len(c.Replicas)].TCPPort)
	}
	return "clickhouse://" + strings.Join(hosts, ",") + "/default"
}

// Stop stops every replica, then ZooKeeper, and returns the first error.
func (c *ClickHouseCluster) Stop() error {
	var first error
	for _, r := range c.Replicas {
		if err := r.Stop(); err != nil && first == nil {
			first = err
		}
	}
	if c.ZooKeeper != nil {
		if err := c.ZooKeeper.Stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func startClickHouse(ctx context.Context, dir string, params map[string]any, log *slog.Logger) (*ClickHouse, error) {
	tcpPort, httpPort := params["TCPPort"].(int), params["HTTPPort"].(int)
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"log", "data", "tmp", "user_files", "format_schemas"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("create clickhouse dir: %w", err)
		}
	}
	var cfg strings.Builder
	params["Dir"] = dir
	if err := chConfig.Execute(&cfg, params); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), []byte(cfg.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write clickhouse config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "users.xml"), []byte(chUsers), 0o644); err != nil {
		return nil, fmt.Errorf("write clickhouse users: %w", err)
	}
	ch := &ClickHouse{
		URL:      fmt.Sprintf("clickhouse://127.0.0.1:%d/default", tcpPort),
		HTTPURL:  fmt.Sprintf("http://127.0.0.1:%d", httpPort),
		TCPPort:  tcpPort,
		HTTPPort: httpPort,
		dir:      dir,
		log:      log,
	}
	if err := ch.Start(ctx); err != nil {
		return nil, err
	}
	return ch, nil
}

// Start (re)starts the server after Stop, on the same ports and data.
func (ch *ClickHouse) Start(ctx context.Context) error {
	args, err := clickhouseCommand(filepath.Join(ch.dir, "config.xml"))
	if err != nil {
		return err
	}
	// A previous server on this dir that outlived its parent holds the ports.
	_ = os.Remove(filepath.Join(ch.dir, "data", "status"))
	p, err := startProc("clickhouse", ch.log, nil, filepath.Join(ch.dir, "log", "stdout.log"), args...)
	if err != nil {
		return err
	}
	err = waitFor(ctx, p, 60*time.Second, func(ctx context.Context) error {
		return ch.Query(ctx, "SELECT 1", nil)
	})
	if err != nil {
		_ = p.stop(syscall.SIGKILL, time.Second)
		return fmt.Errorf("start clickhouse on port %d (logs in %s/log): %w%s", ch.TCPPort, ch.dir, err, lastLogLine(filepath.Join(ch.dir, "log", "error.log")))
	}
	ch.p = p
	ch.log.Info("clickhouse ready", "tcp", ch.TCPPort, "http", ch.HTTPPort, "dir", ch.dir)
	return nil
}

// Stop shuts the server down.
func (ch *ClickHouse) Stop() error {
	if ch.p == nil {
		return nil
	}
	return ch.p.stop(syscall.SIGTERM, 30*time.Second)
}

// Query runs sql over the HTTP interface and copies the answer to out (if not nil).
func (ch *ClickHouse) Query(ctx context.Context, sql string, out io.Writer) error {
	return HTTPQuery(ctx, ch.HTTPURL, sql, out)
}

// HTTPQuery runs sql against a ClickHouse HTTP interface at base.
func HTTPQuery(ctx context.Context, base, sql string, out io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", strings.NewReader(sql))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("clickhouse: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	if out == nil {
		out = io.Discard
	}
	_, err = io.Copy(out, resp.Body)
	return err
}

// lastLogLine is the last line of a server's error log, as "; last logged:
// ..." for an error message (empty when there is none): a server that
// exits during start-up says why only there.
func lastLogLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return ""
	}
	if len(last) > 400 {
		last = last[:400]
	}
	return "; last logged: " + last
}
