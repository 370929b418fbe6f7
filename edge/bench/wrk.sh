#!/usr/bin/env bash
# Compares, in one run on one machine, the edge answering a cached list
# endpoint against a bare fasthttp server returning the same bytes and nginx
# serving the same JSON as a file. Targets: edge >= 0.9x bare, >= 1.2x nginx.
#
#   edge/bench/wrk.sh [duration=10s] [connections=64] [threads=2]
#
# TOKEN=1 makes wrk send an X-Request-Token, so the edge signs every answer
# (SHA-256 over the body) instead of using the signature it keeps for
# token-less requests.
#
# ENCODING=gzip makes wrk send "Accept-Encoding: gzip", as every browser and
# app web view does: the edge answers its precompressed gzip body, the bare
# server the same bytes, and nginx the same bytes as a .gz file (gzip_static).
# The targets are judged without it (the same JSON); this shows what readers
# get.
set -euo pipefail
cd "$(dirname "$0")/../.."
dur=${1:-10s} conns=${2:-64} threads=${3:-2}
# The load generator and the nginx to compare with, from Debian's packages.
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
path=/home/api/v1/webtoon/genre/all?sort=popular
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -n "${BENCHSERVE:-}" ]; then cp "$BENCHSERVE" "$work/benchserve"; else go build -o "$work/benchserve" ./edge/bench/benchserve; fi

wait_url() { for _ in $(seq 1 1200); do [ -s "$1" ] && head -1 "$1" && return 0; sleep 0.1; done; echo "no url in $1" >&2; return 1; }

"$work/benchserve" -mode edge >"$work/edge.url" 2>"$work/edge.log" & pids+=($!)
edge=$(wait_url "$work/edge.url")
for _ in $(seq 1 1200); do curl -fsS "$edge/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "$edge$path" -o "$work/list.json"
curl -fsS "$edge$path" -o /dev/null # the second answer comes from the cache
enc=${ENCODING:-}
body="$work/list.json"
if [ -n "$enc" ]; then
  [ "$enc" = gzip ] || { echo "ENCODING: only gzip (nginx-light has no brotli)" >&2; exit 2; }
  # The edge compresses a body in the background on its first ask.
  for _ in $(seq 1 50); do
    curl -fsS -H "Accept-Encoding: gzip" -D "$work/gz.hdr" "$edge$path" -o "$work/list.json.gz"
    grep -qi '^content-encoding: gzip' "$work/gz.hdr" && break
    sleep 0.1
  done
  grep -qi '^content-encoding: gzip' "$work/gz.hdr" || { echo "the edge answered without gzip" >&2; exit 1; }
  body="$work/list.json.gz"
fi

"$work/benchserve" -mode bare -file "$body" ${enc:+-encoding "$enc"} >"$work/bare.url" 2>"$work/bare.log" & pids+=($!)
bare=$(wait_url "$work/bare.url")

mkdir -p "$work/www/home/api/v1/webtoon/genre"
cp "$work/list.json" "$work/www/home/api/v1/webtoon/genre/all"
[ -z "$enc" ] || cp "$body" "$work/www/home/api/v1/webtoon/genre/all.gz"
nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp; uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  server {
    listen 127.0.0.1:$nport;
    root $work/www;
    ${enc:+gzip_static on;}
    location / { default_type "application/json; charset=utf-8"; add_header Cache-Control no-store; }
  }
}
CONF
mkdir -p "$work/tmp"
chmod -R a+rX "$work" # nginx workers run as an unprivileged user
nginx -c "$work/nginx.conf" -g 'daemon off;' 2>"$work/nginx.log" & pids+=($!)
nginx_url=http://127.0.0.1:$nport
for _ in $(seq 1 100); do curl -fsS "$nginx_url$path" -o /dev/null 2>/dev/null && break; sleep 0.1; done
hdr=()
[ -n "${TOKEN:-}" ] && hdr+=(-H "X-Request-Token: 0123456789abcdef")
[ -n "$enc" ] && hdr+=(-H "Accept-Encoding: $enc")
# All three answer the same bytes.
cmp <(curl -fsS "${hdr[@]}" "$nginx_url$path") "$body"
cmp <(curl -fsS "${hdr[@]}" "$bare$path") "$body"
cmp <(curl -fsS "${hdr[@]}" "$edge$path") "$body"

run() { wrk -t"$threads" -c"$conns" -d"$dur" "${hdr[@]}" "$1$path" | awk '/Requests\/sec/ {print $2}'; }
echo "body: $(wc -c <"$body") bytes${enc:+ ($enc)}; wrk -t$threads -c$conns -d$dur${TOKEN:+ (with request token)}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Interleaved rounds: on a shared machine the load moves during a run.
for round in $(seq 1 "${ROUNDS:-2}"); do
  e=$(run "$edge"); b=$(run "$bare"); n=$(run "$nginx_url")
  printf 'round %s: edge %s  bare %s  nginx %s req/s\n' "$round" "$e" "$b" "$n"
  awk -v e="$e" -v b="$b" -v n="$n" 'BEGIN { printf "  edge/bare %.2f (target >= 0.9)   edge/nginx %.2f (target >= 1.2)\n", e/b, e/n }'
done
