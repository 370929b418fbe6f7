#!/usr/bin/env bash
# The release minute replayed against one edge with a light load generator:
# wrk with edge/bench/release-minute.lua, the k6 release-spike reader's mix of
# paths (today-up, weekday list, the work's detail, its cover, three preview
# pages of the new volume) with the request the store's page sends (fresh
# token, SFS2, br, channel). The number of connections steps up; each step
# reports requests per second, wrk's p50/p99 latency, and the edge's CPU per
# answer (/proc/<pid>/stat over the step ÷ answers), whose inverse is the
# answers one edge core gives. The result: the most requests per second at
# p99 < 50 ms, and requests per second per edge core at that step.
#
#   edge/bench/replay.sh [step duration=10s] [connection steps="8 16 32 64 128 256"]
#
# SIG=1 sends the API calls as old clients do (SFS1, the body hashed per
# request). EDGE_URL=http://... replays against a running edge (EDGE_PID=its pid for
# the CPU figures); otherwise benchserve starts an edge over an embedded NATS
# with the 3,000-work demo catalog. Needs wrk, curl and jq.
set -euo pipefail
cd "$(dirname "$0")/../.."
dur=${1:-10s} steps=${2:-8 16 32 64 128 256} threads=${THREADS:-2}
command -v wrk >/dev/null 2>&1 || {
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null
}
work=$(mktemp -d)
pid=
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

edge=${EDGE_URL:-}
edge_pid=${EDGE_PID:-}
if [ -z "$edge" ]; then
  if [ -n "${BENCHSERVE:-}" ]; then cp "$BENCHSERVE" "$work/benchserve"; else go build -o "$work/benchserve" ./cmd/benchserve; fi
  "$work/benchserve" -mode edge >"$work/edge.url" 2>"$work/edge.log" &
  pid=$! edge_pid=$!
  for _ in $(seq 1 1200); do [ -s "$work/edge.url" ] && break; sleep 0.1; done
  edge=$(head -1 "$work/edge.url")
fi
for _ in $(seq 1 1200); do curl -fsS "$edge/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

# The release work: the first of today's weekday list, its newest volume.
work_pid=$(curl -fsS "$edge/home/api/v1/webtoon/weekday/today" | jq -r '.list[0].pid')
read -r vol preview < <(curl -fsS "$edge/home/api/v1/products/$work_pid" | jq -r '.volList[-1] | "\(.no) \(.previewPages)"')
# Warm every answer and its compressed variants (made in the background on the first ask).
for _ in 1 2 3; do
  for d in today sun mon tue wed thu fri sat; do
    for ch in AW IW AA IA; do
      for p in /home/api/v1/webtoon/todayup "/home/api/v1/webtoon/weekday/$d" "/home/api/v1/products/$work_pid" "/img/cover/$work_pid.svg" "/content/$work_pid/$vol/1.svg" "/content/$work_pid/$vol/2.svg"; do
        curl -fsS -H "Accept-Encoding: br, gzip" -H "X-Channel: $ch" "$edge$p" -o /dev/null
      done
    done
  done
  sleep 0.3
done

ticks() { [ -n "$edge_pid" ] && sed 's/^.*) //' "/proc/$edge_pid/stat" | awk '{print $12 + $13}' || echo 0; }
tck=$(getconf CLK_TCK)
echo "release work $work_pid volume $vol ($preview preview pages); wrk -t$threads, $dur per step; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %10s %9s %9s %12s %14s %6s\n' conns req/s p50-ms p99-ms edge-µs/ans req/s/edge-core load
best=
for c in $steps; do
  c0=$(ticks)
  out=$(wrk -t"$threads" -c"$c" -d"$dur" --latency -s edge/bench/release-minute.lua "$edge" -- "$work_pid" "$vol" "$preview")
  c1=$(ticks)
  line=$(echo "$out" | awk -v c="$c" -v cpu=$((c1 - c0)) -v tck="$tck" -v ld="$(cut -d' ' -f1 /proc/loadavg)" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /requests in/ { n = $1 } /Requests\/sec/ { r = $2 } /Non-2xx/ { bad = $NF }
    $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
    END {
      if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 }
      us = cpu > 0 ? cpu * 1e6 / tck / n : 0
      printf "%6d %10.0f %9.2f %9.2f %12.1f %14.0f %6s\n", c, r, p50, p99, us, (us > 0 ? 1e6 / us : 0), ld
    }')
  echo "$line"
  read -r _ r _ p99 _ percore _ <<<"$line"
  if awk -v p="$p99" 'BEGIN { exit !(p < 50) }'; then best="$r req/s at $c connections (p99 $p99 ms), $percore req/s per edge core"; fi
done
echo "most at p99 < 50 ms: ${best:-none}"
