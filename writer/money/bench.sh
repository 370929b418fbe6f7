#!/usr/bin/env bash
# Purchases per second (BenchmarkPurchase, 32 concurrent buyers) side by side
# with pgbench's built-in TPC-B (32 clients, 20 s) on the same PostgreSQL, and
# the ratio purchases/s : TPC-B tps (issue 32's target: >= 0.8).
#
# Uses the server of DATABASE_URL when set (any database URL on it; pgbench gets
# its own database), else starts a private one with writer/money/cmd/benchpg.
# BENCH_N sets the purchases of the Go benchmark (default 10000),
# BENCH_NO_OUTBOX=1 also runs BenchmarkPurchaseNoOutbox,
# BENCH_SECONDS the pgbench duration (default 20), BENCH_PG_SETTINGS server
# settings for the private server (default none: a durable server),
# BENCH_PG_PORT and BENCH_PG_DIR its port (default a free one) and the parent
# of its data directory (default a temporary folder; the data itself is always
# removed at the end).
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { printf '[bench] %s\n' "$*" >&2; }

pgbin=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
export PATH="$pgbin:$PATH"
n=${BENCH_N:-10000}
secs=${BENCH_SECONDS:-20}

if [ -n "${BENCH_PG_DIR:-}" ]; then mkdir -p "$BENCH_PG_DIR"; fi
work=$(mktemp -d "${BENCH_PG_DIR:-/tmp}/sf-bench-XXXXXX")
chmod 755 "$work"
pgpid=""
cleanup() {
  if [ -n "$pgpid" ]; then kill -TERM "$pgpid" 2>/dev/null || true; wait "$pgpid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -z "${DATABASE_URL:-}" ]; then
  log "starting a private PostgreSQL"
  go build -o "$work/benchpg" ./writer/money/cmd/benchpg
  "$work/benchpg" -dir "$work/pg" -port "${BENCH_PG_PORT:-0}" -url-file "$work/url" -settings "${BENCH_PG_SETTINGS:-}" 2>"$work/pg.log" &
  pgpid=$!
  for _ in $(seq 1 600); do
    [ -s "$work/url" ] && break
    kill -0 "$pgpid" 2>/dev/null || { cat "$work/pg.log" >&2; exit 1; }
    sleep 0.1
  done
  [ -s "$work/url" ] || { log "postgres did not start"; exit 1; }
  DATABASE_URL=$(cat "$work/url")
fi
server=${DATABASE_URL%/*}
tpcb_db="sf_tpcb_$$"
psql -q "$server/postgres" -c "DROP DATABASE IF EXISTS $tpcb_db" -c "CREATE DATABASE $tpcb_db" >/dev/null

log "pgbench -i (scale 32: one branch per client, as TPC-B prescribes)"
pgbench -q -i -s 32 "$server/$tpcb_db" >"$work/init.log" 2>&1
tpcb() {
  log "pgbench TPC-B: 32 clients, ${secs}s"
  pgbench -c 32 -j 2 -T "$secs" "$server/$tpcb_db" >"$work/tpcb.log" 2>&1
  grep -E '^tps' "$work/tpcb.log" | head -1 | sed -E 's/^tps = ([0-9.]+).*/\1/'
}
gobench() {
  log "go test -bench $1: 32 buyers, ${n} purchases"
  DATABASE_URL="$server/postgres" go test -run '^$' -bench "^$1\$" -benchtime "${n}x" -count 1 ./writer/money/ \
    >"$work/go.log" 2>&1 || { cat "$work/go.log" >&2; exit 1; }
  grep -E "^$1" "$work/go.log" | sed -E 's/.* ([0-9.]+) purchases\/s.*/\1/'
}
# TPC-B before and after the purchases, so a change of machine load during the
# run weighs on both sides alike.
tps1=$(tpcb)
pps=$(gobench BenchmarkPurchase)
if [ -n "${BENCH_NO_OUTBOX:-}" ]; then pps_no=$(gobench BenchmarkPurchaseNoOutbox); fi
tps2=$(tpcb)
psql -q "$server/postgres" -c "DROP DATABASE IF EXISTS $tpcb_db" >/dev/null
[ -n "$tps1" ] && [ -n "$tps2" ] && [ -n "$pps" ] || { log "a benchmark failed"; exit 1; }
tps=$(awk -v a="$tps1" -v b="$tps2" 'BEGIN { printf "%.1f", (a + b) / 2 }')

ratio=$(awk -v a="$pps" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')
printf 'pgbench TPC-B (32 clients):     %s tps (before %s, after %s)\n' "$tps" "$tps1" "$tps2"
printf 'purchases (32 buyers):          %s purchases/s\n' "$pps"
printf 'ratio purchases/TPC-B:          %s (target >= 0.8)\n' "$ratio"
if [ -n "${pps_no:-}" ]; then
  printf 'purchases without outbox:       %s purchases/s, ratio %s\n' "$pps_no" "$(awk -v a="$pps_no" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')"
fi
printf 'machine: %s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
