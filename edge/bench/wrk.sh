#!/usr/bin/env bash
# Compares, in one run on one machine, the edge answering a cached list
# endpoint against a bare fasthttp server returning the same bytes and nginx
# serving the same bytes as a file. Besides requests per second it reports
# each server's CPU time per answer (utime+stime from /proc/<pid>/stat over
# the wrk run, divided by the answers): on two cores shared with wrk that is
# the figure that compares servers fairly. Targets: edge >= 0.9x bare and
# >= 1.2x nginx in req/s; edge CPU per answer <= nginx's.
#
#   edge/bench/wrk.sh [duration=10s] [connections=64] [threads=2]
#
# SHAPE=real sends the request as the store's pages do from a browser or an
# app web view (frontend/app/utils/http.ts): a fresh request token per
# request (wrk cycles through 4,096 of them, a Lua script), X-Signature-Version
# 2, "Accept-Encoding: br, gzip", X-Channel, and the cookies of a logged-in
# reader (benchserve -mode cookie). The edge answers its brotli body signed
# SFS2 for that token; the bare server and nginx answer the same brotli bytes
# (nginx as a file with a Content-Encoding header: nginx-light has no brotli)
# and sign nothing.
#
# SIG=1 with SHAPE=real sends the same request without X-Signature-Version,
# as an old client does: the edge signs SFS1, hashing the body per request.
#
# TOKEN=1 makes wrk send an X-Request-Token (one token, SFS1); SIG=2 with it
# asks for SFS2.
#
# ENCODING=gzip makes wrk send "Accept-Encoding: gzip": the edge answers its
# precompressed gzip body, the bare server the same bytes, and nginx the same
# bytes as a .gz file (gzip_static).
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

if [ -n "${BENCHSERVE:-}" ]; then cp "$BENCHSERVE" "$work/benchserve"; else go build -o "$work/benchserve" ./cmd/benchserve; fi

wait_url() { for _ in $(seq 1 1200); do [ -s "$1" ] && head -1 "$1" && return 0; sleep 0.1; done; echo "no url in $1" >&2; return 1; }

"$work/benchserve" -mode edge >"$work/edge.url" 2>"$work/edge.log" & pids+=($!)
edge=$(wait_url "$work/edge.url")
for _ in $(seq 1 1200); do curl -fsS "$edge/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
enc=${ENCODING:-}
shape=${SHAPE:-}
hdr=() aud=()
if [ "$shape" = real ]; then
  enc=br
  # The reader's audience (adult, web channel) picks the variant of the list.
  aud=(-H "Cookie: $("$work/benchserve" -mode cookie)" -H "X-Channel: AW")
  # SIG=1: the same request from an old client (SFS1: the edge hashes the body per request).
  [ "${SIG:-2}" = 1 ] || hdr+=(-H "X-Signature-Version: 2")
  hdr+=("${aud[@]}" -H "Accept: application/json" -H "Accept-Encoding: br, gzip"
    -H "Cache-Control: no-cache, no-store, must-revalidate" -H "Pragma: no-cache" -H "Expires: 0"
    -H "User-Agent: Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36")
elif [ -n "$shape" ]; then
  echo "SHAPE: only real" >&2; exit 2
fi
curl -fsS "${aud[@]}" "$edge$path" -o "$work/list.json"
curl -fsS "${aud[@]}" "$edge$path" -o /dev/null # the second answer comes from the cache
body="$work/list.json"
if [ -n "$enc" ]; then
  case "$enc" in gzip | br) ;; *) echo "ENCODING: gzip (or SHAPE=real for brotli)" >&2; exit 2 ;; esac
  # The edge compresses a body in the background on its first ask.
  for _ in $(seq 1 50); do
    curl -fsS "${aud[@]}" -H "Accept-Encoding: $enc" -D "$work/enc.hdr" "$edge$path" -o "$work/list.json.$enc"
    grep -qi "^content-encoding: $enc" "$work/enc.hdr" && break
    sleep 0.1
  done
  grep -qi "^content-encoding: $enc" "$work/enc.hdr" || { echo "the edge answered without $enc" >&2; exit 1; }
  body="$work/list.json.$enc"
fi

"$work/benchserve" -mode bare -file "$body" ${enc:+-encoding "$enc"} >"$work/bare.url" 2>"$work/bare.log" & pids+=($!)
bare=$(wait_url "$work/bare.url")

mkdir -p "$work/www/home/api/v1/webtoon/genre"
cp "$work/list.json" "$work/www/home/api/v1/webtoon/genre/all"
nginx_enc=
case "$enc" in
  gzip) cp "$body" "$work/www/home/api/v1/webtoon/genre/all.gz"; nginx_enc="gzip_static on;" ;;
  # nginx-light has no brotli module: the file holds the brotli bytes.
  br) cp "$body" "$work/www/home/api/v1/webtoon/genre/all"; nginx_enc="add_header Content-Encoding br;" ;;
esac
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
    location / { default_type "application/json; charset=utf-8"; add_header Cache-Control no-store; $nginx_enc }
  }
}
CONF
mkdir -p "$work/tmp"
chmod -R a+rX "$work" # nginx workers run as an unprivileged user
nginx -c "$work/nginx.conf" -g 'daemon off;' 2>"$work/nginx.log" & pids+=($!)
nginx_url=http://127.0.0.1:$nport
for _ in $(seq 1 100); do curl -fsS "$nginx_url$path" -o /dev/null 2>/dev/null && break; sleep 0.1; done
[ -n "${TOKEN:-}" ] && hdr+=(-H "X-Request-Token: 0123456789abcdef")
[ -n "${TOKEN:-}" ] && [ "${SIG:-}" = 2 ] && hdr+=(-H "X-Signature-Version: 2")
[ -n "$enc" ] && [ "$shape" != real ] && hdr+=(-H "Accept-Encoding: $enc")
# All three answer the same bytes.
cmp <(curl -fsS "${hdr[@]}" "$nginx_url$path") "$body"
cmp <(curl -fsS "${hdr[@]}" "$bare$path") "$body"
cmp <(curl -fsS "${hdr[@]}" "$edge$path") "$body"
lua=()
if [ "$shape" = real ]; then
  lua=(-s edge/bench/fresh-token.lua)
  # The edge's answer verifies for its token (over the plain body).
  tok=0123456789abcdef0123456789abcdef
  sig=$(curl -fsS "${hdr[@]}" -H "X-Request-Token: $tok" -D - -o /dev/null "$edge$path" | tr -d '\r' | sed -n 's/^[Aa]uthorization: //p')
  if [ "${SIG:-2}" = 1 ]; then
    want="SFS1 $({ printf '200\n%s\n' "$tok"; cat "$work/list.json"; } | sha256sum | cut -d' ' -f1)"
  else
    want="SFS2 $(printf '%s\n200\n%s' "$(sha256sum <"$work/list.json" | cut -d' ' -f1)" "$tok" | sha256sum | cut -d' ' -f1)"
  fi
  [ "$sig" = "$want" ] || { echo "edge signature $sig, want $want" >&2; exit 1; }
fi

nginx_master=$(cat "$work/nginx.pid")
# cpu_ticks PID...: utime+stime of the processes, in clock ticks.
cpu_ticks() {
  local t=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    # fields 14 and 15 after the command name (which may hold spaces)
    t=$((t + $(sed 's/^.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
  done
  echo "$t"
}
edge_pid=${pids[0]} bare_pid=${pids[1]}
tck=$(getconf CLK_TCK)
# run URL PID...: prints "req/s µs-of-CPU-per-answer"
run() {
  local url=$1; shift
  local c0 c1 out procs=("$@")
  # nginx: its master and its workers (the master's children)
  [ "$1" = "$nginx_master" ] && procs+=($(ps -o pid= --ppid "$nginx_master"))
  c0=$(cpu_ticks "${procs[@]}")
  out=$(wrk -t"$threads" -c"$conns" -d"$dur" "${lua[@]}" "${hdr[@]}" "$url$path")
  c1=$(cpu_ticks "${procs[@]}")
  echo "$out" | awk -v c=$((c1 - c0)) -v tck="$tck" '/requests in/ {n=$1} /Requests\/sec/ {r=$2} /Non-2xx/ {bad=$NF} END { if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 } printf "%s %.1f\n", r, c * 1e6 / tck / n }'
}
what="wrk -t$threads -c$conns -d$dur"
[ -n "${TOKEN:-}" ] && what+=" (request token${SIG:+, SFS$SIG})"
[ "$shape" = real ] && what+=" (real request shape: fresh token per request, SFS${SIG:-2}, br, channel, reader cookies)"
echo "body: $(wc -c <"$body") bytes${enc:+ ($enc)} of $(wc -c <"$work/list.json") plain; $what; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Interleaved rounds: on a shared machine the load moves during a run.
for round in $(seq 1 "${ROUNDS:-2}"); do
  r=$(run "$edge" "$edge_pid") && read -r e ec <<<"$r"
  r=$(run "$bare" "$bare_pid") && read -r b bc <<<"$r"
  r=$(run "$nginx_url" "$nginx_master") && read -r n nc <<<"$r"
  printf 'round %s: edge %s  bare %s  nginx %s req/s;  CPU per answer: edge %s  bare %s  nginx %s µs (load %s)\n' "$round" "$e" "$b" "$n" "$ec" "$bc" "$nc" "$(cut -d' ' -f1 /proc/loadavg)"
  awk -v e="$e" -v b="$b" -v n="$n" -v ec="$ec" -v nc="$nc" 'BEGIN { printf "  edge/bare %.2f (target >= 0.9)   edge/nginx %.2f (target >= 1.2)   edge CPU/nginx CPU %.2f (target <= 1)\n", e/b, e/n, ec/nc }'
done
