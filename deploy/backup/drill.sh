#!/usr/bin/env bash
# The backup and restore drill of docs/operations.md "Backups", on a local
# store, ending with an exact reconciliation:
#
#   1. PostgreSQL with a WAL archive, ClickHouse and NATS (bin/storefront deps),
#      the store on them (bin/storefront up).
#   2. Members sign up, charge, buy and rent (loadtest's purchase storm, smoke),
#      page views are tracked; then a base backup of PostgreSQL (pg_basebackup).
#   3. More of the same, which only the WAL archive holds.
#   4. The recovery point: once the outbox and analytics have caught up, the
#      money tables' fingerprint, a named restore point in PostgreSQL, a logical
#      backup of ClickHouse, a snapshot of the NATS streams (streambackup).
#   5. After the point: a new work through the admin API (must NOT come back).
#   6. Disaster: every process killed, every data folder deleted (the backups
#      and the WAL archive are kept).
#   7. Restore: base backup + WAL replayed to the restore point, ClickHouse
#      tables then their materialized views, the NATS streams; the store started.
#   8. Reconcile exactly: wallets, ledger, entitlements, purchases, charges
#      (row by row, by md5) equal the recovery point's; every wallet equals its
#      ledger; the work made after the point is gone (PostgreSQL and edge); the
#      events in ClickHouse, and in the EVENTS stream, equal the point's; and
#      a few seconds of the running store later still nothing is doubled;
#      new page views through the restored store land in ClickHouse exactly once.
#
# Usage: deploy/backup/drill.sh   (the test command runs it)
#   DRILL_DATA (default .data/drill); DRILL_{PG,CH,CH_HTTP,NATS,EDGE}_PORT move
#   the ports (edge+1 writer, edge+2 analytics).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
. scripts/goenv.sh
use_go
log() { printf '\033[1;34m[drill]\033[0m %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

d=${DRILL_DATA:-$root/.data/drill}
pg_port=${DRILL_PG_PORT:-26470}
ch_port=${DRILL_CH_PORT:-29170}
ch_http_port=${DRILL_CH_HTTP_PORT:-28270}
nats_port=${DRILL_NATS_PORT:-24370}
edge_port=${DRILL_EDGE_PORT:-28070}
writer_port=$((edge_port + 1))
analytics_port=$((edge_port + 2))
edge=http://127.0.0.1:$edge_port
start=$(date +%s)

rm -rf "$d"
mkdir -p "$d/wal" "$d/backup" "$d/log"
if [ ! -x bin/storefront ] || [ -n "$(find . \( -path ./.data -o -path ./frontend -o -path ./.git \) -prune -o -name '*.go' -newer bin/storefront -print -quit)" ]; then
  log "building the launcher"
  go build -o bin/storefront ./cmd/storefront
fi
go build -o bin/streambackup ./deploy/backup/streambackup

pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# initdb refuses root: as root the cluster belongs to the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
own_pg() { if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$@"; fi; }
pg_url=postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable
sql() { psql -qXAt "$pg_url" -v ON_ERROR_STOP=1 -c "$1"; }

stack_pid= deps_pid=
stop_all() {
  for p in $stack_pid $deps_pid; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $stack_pid $deps_pid; do wait "$p" 2>/dev/null || true; done
  stack_pid= deps_pid=
  [ -f "$d/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$d/pg" stop -m fast -w >/dev/null 2>&1 || true
}
trap stop_all EXIT

start_pg() {
  as_pg "$pgbin/pg_ctl" -D "$d/pg" -l "$d/log/pg.log" -w -t 300 start >/dev/null || { tail -20 "$d/log/pg.log" >&2; fail "PostgreSQL did not start"; }
}

# wait_file FILE PID WHAT LOG
wait_file() {
  for _ in $(seq 1 1800); do
    [ -f "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || { tail -30 "$4" >&2; fail "$3 exited"; }
    sleep 0.1
  done
  tail -30 "$4" >&2
  fail "$3 did not start"
}

start_deps() { # ClickHouse and NATS, fresh under $d/deps unless they are there
  rm -f "$d/deps.env"
  # (the URLs of a previous start are in the environment: deps would use them)
  env -u CLICKHOUSE_URL -u CLICKHOUSE_HTTP_URL -u NATS_URL DATABASE_URL=$pg_url bin/storefront deps -data "$d/deps" -ch-port "$ch_port" -ch-http-port "$ch_http_port" \
    -nats -nats-port "$nats_port" -env-file "$d/deps.env" >>"$d/deps.log" 2>&1 &
  deps_pid=$!
  wait_file "$d/deps.env" "$deps_pid" "ClickHouse and NATS" "$d/deps.log"
  set -a; . "$d/deps.env"; set +a
  ch="${CLICKHOUSE_HTTP_URL%/}/"
}
chq() { curl -fsS "$ch?database=drill" --data-binary "$1"; }

start_stack() {
  rm -f "$d/ready"
  DATABASE_URL=$pg_url CLICKHOUSE_URL=${CLICKHOUSE_URL%/*}/drill NATS_URL=$NATS_URL \
    LOGIN_PER_MINUTE=1000000 LOG_LEVEL=warn \
    bin/storefront up -data "$d/stack" -edge-addr "127.0.0.1:$edge_port" -edge-ops-addr 127.0.0.1:0 -writer-addr "127.0.0.1:$writer_port" \
    -analytics-addr "127.0.0.1:$analytics_port" -works "${DRILL_WORKS:-40}" -ready-file "$d/ready" >>"$d/stack.log" 2>&1 &
  stack_pid=$!
  wait_file "$d/ready" "$stack_pid" "the store" "$d/stack.log"
}

# metric URL NAME [LABELS]: one sample of a service's /metrics (summed over label sets).
metric() { curl -fsS "$1/metrics" | awk -v n="$2" -v l="${3:-}" '$1 == n || (index($1, n "{") == 1 && index($1, l) > 0) { s += $2 } END { printf "%d\n", s }'; }

# caught_up: the outbox has published everything and analytics has inserted
# everything the stream holds (so the backups of the three agree).
caught_up() {
  local i
  for i in $(seq 1 300); do
    if [ "$(metric "http://127.0.0.1:$writer_port" writer_outbox_pending_rows)" = 0 ] &&
      [ "$(metric "http://127.0.0.1:$analytics_port" analytics_consumer_pending_messages)" = 0 ] &&
      [ "$(metric "http://127.0.0.1:$analytics_port" analytics_consumer_ack_pending_messages)" = 0 ]; then
      return 0
    fi
    sleep 0.2
  done
  fail "the outbox or analytics did not catch up"
}

activity() { # one purchase storm and one burst of page views, through the edge
  LT_BASE_URL=$edge LT_RUN_ID=$1 DATABASE_URL=$pg_url CLICKHOUSE_HTTP_URL=$CLICKHOUSE_HTTP_URL LT_CLICKHOUSE_DB=drill \
    LT_WRITER_URL=http://127.0.0.1:$writer_port loadtest/run.sh purchase-storm smoke >"$d/activity-$1.log" 2>&1 ||
    { tail -30 "$d/activity-$1.log" >&2; fail "activity $1"; }
  LT_BASE_URL=$edge LT_RUN_ID=$1 CLICKHOUSE_HTTP_URL=$CLICKHOUSE_HTTP_URL LT_CLICKHOUSE_DB=drill \
    loadtest/run.sh ingestion smoke >>"$d/activity-$1.log" 2>&1 ||
    { tail -30 "$d/activity-$1.log" >&2; fail "activity $1 (page views)"; }
}

# The money tables, row by row: equal fingerprints mean equal tables.
fingerprint() {
  sql "SELECT concat_ws(' ',
    'users=' || (SELECT count(*) FROM users),
    'wallets=' || (SELECT count(*) || ':' || coalesce(sum(blue), 0) || '/' || coalesce(sum(mileage), 0) || ':' || md5(coalesce(string_agg(w::text, ',' ORDER BY w.uid), '')) FROM wallets w),
    'ledger=' || (SELECT count(*) || ':' || md5(coalesce(string_agg(l::text, ',' ORDER BY l.id), '')) FROM ledger l),
    'entitlements=' || (SELECT count(*) || ':' || md5(coalesce(string_agg(e::text, ',' ORDER BY e::text), '')) FROM entitlements e),
    'purchases=' || (SELECT count(*) || ':' || md5(coalesce(string_agg(p::text, ',' ORDER BY p::text), '')) FROM purchases p),
    'charges=' || (SELECT count(*) || ':' || md5(coalesce(string_agg(c::text, ',' ORDER BY c::text), '')) FROM charges c))"
}
# Whatever happened: every wallet equals the sums of its ledger, every ledger
# chain's balance_after its running sum. Both numbers must be 0.
invariants() {
  sql "SELECT (SELECT count(*) FROM wallets w LEFT JOIN (
      SELECT uid, sum(delta) FILTER (WHERE money = 'blue') b, sum(delta) FILTER (WHERE money = 'android') a,
             sum(delta) FILTER (WHERE money = 'ios') i, sum(delta) FILTER (WHERE money = 'mileage') mi
      FROM ledger GROUP BY uid) l USING (uid)
    WHERE (w.blue, w.android, w.ios, w.mileage) IS DISTINCT FROM (coalesce(l.b, 0), coalesce(l.a, 0), coalesce(l.i, 0), coalesce(l.mi, 0)))
    || ' ' || (SELECT count(*) FROM (SELECT balance_after, sum(delta) OVER (PARTITION BY uid, money ORDER BY id) AS run FROM ledger) x
    WHERE balance_after <> run)"
}
# archived SEGMENT: waits until the WAL archive holds it.
archived() {
  for _ in $(seq 1 300); do
    [ -f "$d/wal/$1" ] && return 0
    sleep 0.1
  done
  fail "WAL segment $1 was not archived"
}
events_figures() { chq "SELECT count(), uniqExact(id), (SELECT count() FROM events) FROM events FINAL FORMAT TSV"; }

log "1. PostgreSQL with a WAL archive, ClickHouse, NATS, the store"
mkdir -p "$d/pg"
own_pg "$d/pg" "$d/wal" "$d/log"
chmod 700 "$d/pg"
as_pg "$pgbin/initdb" -D "$d/pg" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
cat >>"$d/pg/postgresql.conf" <<EOF
port = $pg_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$d/log'
max_connections = 200
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $d/wal/%f && cp %p $d/wal/%f'
EOF
start_pg
start_deps
curl -fsS "$ch" --data-binary "CREATE DATABASE drill" >/dev/null
start_stack

log "2. activity, then a base backup"
activity a
pg_basebackup -d "$pg_url" -D "$d/backup/base" -Ft -z -X stream -c fast
log "3. activity the WAL archive alone holds"
activity b

log "4. the recovery point"
caught_up
# Page views are in ClickHouse once analytics acked them: give the last batch's
# insert time to show in the table too.
sleep 1
truth=$(fingerprint)
read -r ev_count ev_uniq ev_raw < <(events_figures)
stream_msgs=$(metric "http://127.0.0.1:$analytics_port" analytics_events_stream_messages)
products=$(curl -fsS "$edge/readyz" | awk '$1 == "catalog_products" { print $2 }')
sql "SELECT pg_create_restore_point('drill')" >/dev/null
# Close the WAL segment holding the point, so the archive has it.
archived "$(sql "SELECT pg_walfile_name(pg_switch_wal())")"
log "   money: $truth"
log "   events: $ev_count in ClickHouse ($ev_uniq distinct, $ev_raw rows), $stream_msgs in EVENTS; edge products $products"
# ClickHouse: a logical backup, each table's definition and rows (Native
# format); materialized views' definitions only (they hold no rows of their own).
mkdir -p "$d/backup/clickhouse"
chq "SELECT name, engine FROM system.tables WHERE database = 'drill' FORMAT TSV" >"$d/backup/clickhouse/tables.tsv"
while read -r name engine; do
  chq "SHOW CREATE TABLE drill.$name FORMAT TSVRaw" >"$d/backup/clickhouse/$name.sql"
  [ "$engine" = MaterializedView ] || chq "SELECT * FROM drill.$name FORMAT Native" >"$d/backup/clickhouse/$name.native"
done <"$d/backup/clickhouse/tables.tsv"
bin/streambackup -nats-url "$NATS_URL" backup "$d/backup/nats" >&2

log "5. after the point: a new work (must not come back)"
BASE_URL=$edge ADMIN_TOKEN=dev-admin-token loadtest/prepare.sh 0 late >"$d/late.env"
late_pid=$(sed -n 's/^RELEASE_PID=//p' "$d/late.env")
[ "$(sql "SELECT count(*) FROM works WHERE pid = '$late_pid'")" = 1 ] || fail "the late work $late_pid was not made"
# Its WAL is archived too (as archive_timeout would): only the recovery target
# keeps it out of the restore, not a missing segment.
archived "$(sql "SELECT pg_walfile_name(pg_switch_wal())")"

log "6. disaster: every process killed, every data folder deleted"
# The store dies hard; the servers stop (the launcher of ClickHouse must stop
# its child) before their folders are deleted.
kill -KILL "$stack_pid" 2>/dev/null || true
kill -TERM "$deps_pid" 2>/dev/null || true
wait "$stack_pid" "$deps_pid" 2>/dev/null || true
stack_pid= deps_pid=
as_pg "$pgbin/pg_ctl" -D "$d/pg" stop -m immediate -w >/dev/null
rm -rf "$d/pg" "$d/deps" "$d/stack"

log "7. restore: PostgreSQL to the restore point, ClickHouse, NATS, the store"
mkdir -p "$d/pg/pg_wal"
tar -xzf "$d/backup/base/base.tar.gz" -C "$d/pg"
tar -xzf "$d/backup/base/pg_wal.tar.gz" -C "$d/pg/pg_wal"
cat >>"$d/pg/postgresql.conf" <<EOF
restore_command = 'cp $d/wal/%f %p'
recovery_target_name = 'drill'
recovery_target_action = 'promote'
EOF
touch "$d/pg/recovery.signal"
own_pg "$d/pg"
chmod 700 "$d/pg"
start_pg
for _ in $(seq 1 600); do
  [ "$(sql "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ] && break
  sleep 0.1
done
[ "$(sql "SELECT pg_is_in_recovery()")" = f ] || fail "PostgreSQL did not finish recovery"
grep -q 'recovery stopping at restore point "drill"' "$d/log/pg.log" || fail "recovery did not stop at the restore point (see $d/pg.log)"
start_deps
curl -fsS "$ch" --data-binary "CREATE DATABASE drill" >/dev/null
# Tables first, rows in, then the views: rows restored into events must not
# run through the views into the rollups a second time.
while read -r name engine; do
  [ "$engine" = MaterializedView ] && continue
  chq "$(cat "$d/backup/clickhouse/$name.sql")" >/dev/null
  curl -fsS "$ch?query=$(printf 'INSERT INTO drill.%s FORMAT Native' "$name" | jq -sRr @uri)" --data-binary @"$d/backup/clickhouse/$name.native" >/dev/null
done <"$d/backup/clickhouse/tables.tsv"
while read -r name engine; do
  [ "$engine" = MaterializedView ] && chq "$(cat "$d/backup/clickhouse/$name.sql")" >/dev/null
done <"$d/backup/clickhouse/tables.tsv"
bin/streambackup -nats-url "$NATS_URL" restore "$d/backup/nats" >&2
start_stack

log "8. reconcile"
errs=()
got=$(fingerprint)
[ "$got" = "$truth" ] || errs+=("money tables differ: restored [$got], recovery point [$truth]")
inv=$(invariants)
[ "$inv" = "0 0" ] || errs+=("wallets not equal to their ledger or broken ledger chains: [$inv]")
[ "$(sql "SELECT count(*) FROM works WHERE pid = '$late_pid'")" = 0 ] || errs+=("the work made after the restore point came back")
code=$(curl -s -o /dev/null -w '%{http_code}' "$edge/home/api/v1/products/$late_pid")
[ "$code" = 404 ] || errs+=("the edge answers $code for the work made after the restore point")
got_products=$(curl -fsS "$edge/readyz" | awk '$1 == "catalog_products" { print $2 }')
[ "$got_products" = "$products" ] || errs+=("the edge serves $got_products products, $products at the recovery point")
got_stream=$(metric "http://127.0.0.1:$analytics_port" analytics_events_stream_messages)
[ "$got_stream" = "$stream_msgs" ] || errs+=("EVENTS holds $got_stream messages, $stream_msgs at the recovery point")
# The running store for a while: analytics resumes at its restored position,
# nothing is inserted twice.
sleep 3
caught_up
read -r c u r < <(events_figures)
[ "$c $u $r" = "$ev_count $ev_uniq $ev_raw" ] || errs+=("ClickHouse events [$c $u $r], at the recovery point [$ev_count $ev_uniq $ev_raw]")
[ "$ev_count" -gt 0 ] && [ "$(echo "$truth" | sed -n 's/.*purchases=\([0-9]*\):.*/\1/p')" -gt 0 ] || errs+=("nothing to reconcile: no events or no purchases")
# The restored pipeline takes new events, each exactly once (loadtest's own
# check counts this run's page views in ClickHouse).
LT_BASE_URL=$edge LT_RUN_ID=c CLICKHOUSE_HTTP_URL=$CLICKHOUSE_HTTP_URL LT_CLICKHOUSE_DB=drill \
  loadtest/run.sh ingestion smoke >"$d/activity-c.log" 2>&1 || errs+=("page views after the restore did not land exactly once (see $d/activity-c.log)")
if [ ${#errs[@]} -gt 0 ]; then
  for e in "${errs[@]}"; do log "MISMATCH: $e"; done
  fail "the restored store does not reconcile"
fi
log "restored store reconciles exactly: $got; events $c; EVENTS $got_stream; late work absent ($(($(date +%s) - start))s)"
