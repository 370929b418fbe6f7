#!/usr/bin/env bash
# Purchases per second (BenchmarkPurchase, 32 concurrent buyers) side by side
# with pgbench's built-in TPC-B (32 clients, 20 s) on the same PostgreSQL, and
# the ratio purchases/s : TPC-B tps (issue 32's target: >= 0.8); with the
# private server also the server's CPU per transaction of each, whose ratio
# does not move with the load of other processes on a shared machine.
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
# srvcpu prints the CPU seconds the private server has used so far: the
# postmaster's own and its reaped children's (backends that ended), plus its
# live children's. On a shared machine throughput follows the load of the
# others, while the server's CPU per transaction does not.
srvcpu() {
  [ -n "$pgpid" ] && [ -s "$work/pg/postmaster.pid" ] || { echo 0; return; }
  local pm
  pm=$(head -1 "$work/pg/postmaster.pid")
  sleep 1 # let the postmaster reap the backends that just ended
  { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"
    for c in $(ps --ppid "$pm" -o pid=); do awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || true; done
  } | awk -v hz="$(getconf CLK_TCK)" '{ t += $1 } END { printf "%.2f", t / hz }'
}
tpcb() {
  log "pgbench TPC-B: 32 clients, ${secs}s"
  local c0
  c0=$(srvcpu)
  pgbench -c 32 -j 2 -T "$secs" "$server/$tpcb_db" >"$work/tpcb.log" 2>&1
  local txns
  txns=$(grep -E 'number of transactions actually processed' "$work/tpcb.log" | sed -E 's/.*: ([0-9]+).*/\1/')
  printf '%s %s\n' "$(grep -E '^tps' "$work/tpcb.log" | head -1 | sed -E 's/^tps = ([0-9.]+).*/\1/')" \
    "$(awk -v a="$c0" -v b="$(srvcpu)" -v n="$txns" 'BEGIN { printf "%.3f", (b - a) * 1000 / n }')"
}
gobench() {
  log "go test -bench $1: 32 buyers, ${n} purchases"
  # Built first, so the compiler's CPU is not in the server's.
  go test -c -o "$work/money.test" ./writer/money/ >"$work/go.log" 2>&1 || { cat "$work/go.log" >&2; exit 1; }
  # The benchmark's setup (a fresh database and its migrations, the works
  # and wallets; twice, as go test runs a benchmark once with N=1 first)
  # costs the server about a second of CPU: a run of 32 purchases measures
  # it, and the per-purchase figure is the difference of the two runs.
  local c0 c1 c2
  c0=$(srvcpu)
  DATABASE_URL="$server/postgres" "$work/money.test" -test.run '^$' -test.bench "^$1\$" -test.benchtime 32x -test.count 1 \
    >"$work/go.log" 2>&1 || { cat "$work/go.log" >&2; exit 1; }
  c1=$(srvcpu)
  DATABASE_URL="$server/postgres" "$work/money.test" -test.run '^$' -test.bench "^$1\$" -test.benchtime "${n}x" -test.count 1 \
    >"$work/go.log" 2>&1 || { cat "$work/go.log" >&2; exit 1; }
  c2=$(srvcpu)
  printf '%s %s\n' "$(grep -E "^$1" "$work/go.log" | sed -E 's/.* ([0-9.]+) purchases\/s.*/\1/')" \
    "$(awk -v a="$c0" -v b="$c1" -v c="$c2" -v n="$n" 'BEGIN { printf "%.3f", ((c - b) - (b - a)) * 1000 / (n - 32) }')"
}
# TPC-B before and after the purchases, so a change of machine load during the
# run weighs on both sides alike.
read -r tps1 cpu1 <<<"$(tpcb)"
read -r pps cpup <<<"$(gobench BenchmarkPurchase)"
if [ -n "${BENCH_NO_OUTBOX:-}" ]; then read -r pps_no cpup_no <<<"$(gobench BenchmarkPurchaseNoOutbox)"; fi
read -r tps2 cpu2 <<<"$(tpcb)"
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
if [ -n "$pgpid" ]; then
  cput=$(awk -v a="$cpu1" -v b="$cpu2" 'BEGIN { printf "%.3f", (a + b) / 2 }')
  printf 'server CPU per transaction:     TPC-B %s ms (before %s, after %s), purchase %s ms\n' "$cput" "$cpu1" "$cpu2" "$cpup"
  printf 'server CPU ratio TPC-B/purchase: %s (load-independent: the clients excluded)\n' \
    "$(awk -v a="$cput" -v b="$cpup" 'BEGIN { printf "%.2f", a / b }')"
  if [ -n "${cpup_no:-}" ]; then printf 'purchase without outbox:        %s ms of server CPU\n' "$cpup_no"; fi
fi
printf 'machine: %s cores, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
