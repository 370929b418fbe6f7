#!/usr/bin/env bash
# Times the demo's first run from an empty data folder: starts
# `storefront up -works N` on a fresh folder and reports, when the ready file
# appears, the wall time, the launcher's CPU-seconds (utime+stime from
# /proc/<pid>/stat, robust to other load on the machine), the CPU-seconds of
# its child processes (PostgreSQL with the backends it reaped, ClickHouse),
# the load average, the
# data folder's size and the launcher's resident memory; then stops it.
#
#   scripts/measure-first-run.sh BIN DATA PORTBASE [WORKS] [extra flags of up]
#
# PORTBASE..PORTBASE+9 are used (edge, edge ops, writer, analytics, NATS,
# PostgreSQL, ClickHouse native and HTTP).
set -euo pipefail
bin=$1 data=$2 base=$3 works=${4:-3000}
shift 3; [ $# -gt 0 ] && shift
rm -rf "$data"; mkdir -p "$(dirname "$data")"
ready="$data.ready"; rm -f "$ready"
log="$data.log"
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{ split($0, a, ") "); split(a[2], f, " "); printf "%.2f", (f[12]+f[13])/t }' "/proc/$1/stat"; }
# With the CPU of the children a process has waited for (PostgreSQL's
# postmaster reaps its backends: a closed connection's CPU lands there).
cpuall() { awk -v t="$tck" '{ split($0, a, ") "); split(a[2], f, " "); printf "%.2f", (f[12]+f[13]+f[14]+f[15])/t }' "/proc/$1/stat"; }
desc() { # live descendants of $1
  local kids; kids=$(pgrep -P "$1" || true)
  for k in $kids; do echo "$k"; desc "$k"; done
}
t0=$(date +%s.%N)
"$bin" up -works "$works" -data "$data" -ready-file "$ready" \
  -edge-addr 127.0.0.1:$((base)) -edge-ops-addr 127.0.0.1:$((base+1)) \
  -writer-addr 127.0.0.1:$((base+2)) -analytics-addr 127.0.0.1:$((base+3)) \
  -nats-port $((base+4)) -pg-port $((base+5)) -ch-port $((base+6)) -ch-http-port $((base+7)) \
  "$@" >"$log" 2>&1 &
pid=$!
while [ ! -e "$ready" ]; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "launcher exited; see $log" >&2; exit 1; fi
  sleep 0.2
done
t1=$(date +%s.%N)
self=$(cpu "$pid")
kids=0
for k in $(desc "$pid"); do c=$(cpuall "$k" 2>/dev/null || echo 0); kids=$(echo "$kids + $c" | bc); done
rss=$(( $(ps -o rss= -p "$pid") / 1024 ))
load=$(cut -d' ' -f1-3 /proc/loadavg)
size=$(du -sh "$data" | cut -f1)
printf 'wall %.1f s  launcher %s CPU-s  children %s CPU-s  rss %d MB  data %s  load %s\n' \
  "$(echo "$t1 - $t0" | bc)" "$self" "$kids" "$rss" "$size" "$load"
kill -INT "$pid"; wait "$pid" || true
