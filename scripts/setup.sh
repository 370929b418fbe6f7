#!/usr/bin/env bash
# Installs what the project needs on a Debian bookworm machine and is fast when
# everything is already there: it checks before it installs.
#   scripts/setup.sh            system packages + Go modules + frontend packages
#   SETUP_SKIP_FRONTEND=1       skip the frontend packages
#   SETUP_SKIP_K6=1             skip building k6 (load tests)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

need_pkgs=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# PostgreSQL server binaries (we run our own cluster; the package's own service is not used).
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need_pkgs+=(postgresql)
command -v clickhouse-server >/dev/null 2>&1 || [ -x /usr/sbin/clickhouse-server ] || command -v clickhouse >/dev/null 2>&1 || need_pkgs+=(clickhouse-server clickhouse-client)
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
# PgBouncer: the writer's transaction-pooling test runs through a real one
# (started by the test on its own port; the package's service is not used).
[ -x /usr/sbin/pgbouncer ] || command -v pgbouncer >/dev/null 2>&1 || need_pkgs+=(pgbouncer)
# ZooKeeper (with a JRE): ClickHouse 18.16's replicated tables coordinate
# through it; the ingest test of retries across replicas starts one.
[ -f /usr/share/java/zookeeper.jar ] || need_pkgs+=(zookeeper)
# Korean glyphs for screenshots of the store.
have_pkg fonts-noto-cjk || need_pkgs+=(fonts-noto-cjk)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
# The load tests' after-run checks read k6's JSON summaries.
command -v jq >/dev/null 2>&1 || need_pkgs+=(jq)
command -v node >/dev/null 2>&1 || need_pkgs+=(nodejs npm)
command -v gcc >/dev/null 2>&1 || need_pkgs+=(gcc)
# Unpacks the Go toolchain from the module proxy's zip when Go is missing.
command -v unzip >/dev/null 2>&1 || need_pkgs+=(unzip)
# libvips: media processing (govips links libvips-dev; the vips command rasterizes
# the demo's drawings). Debian's libheif writes AVIF through libaom.
have_pkg libvips-dev || need_pkgs+=(libvips-dev)
command -v vips >/dev/null 2>&1 || need_pkgs+=(libvips-tools)
# The deployment kit's checks: promtool (alert rules), systemd-analyze (units),
# ca-certificates (copied into the images).
command -v promtool >/dev/null 2>&1 || need_pkgs+=(prometheus)
command -v systemd-analyze >/dev/null 2>&1 || need_pkgs+=(systemd)
[ -f /etc/ssl/certs/ca-certificates.crt ] || need_pkgs+=(ca-certificates)

if [ ${#need_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  log "installing ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # The postgresql package's post-install would start a system cluster; we never use it.
  $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# Go as new as go.mod asks: the machine's, else ours under .data/toolchain,
# else fetched from the Go module proxy into it (scripts/goenv.sh).
. scripts/goenv.sh
if ! use_go; then
  log "Go $(go_want) not found: fetching it from the Go module proxy"
  fetch_go && use_go || { echo "could not install Go $(go_want) (see above)" >&2; exit 1; }
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "Node.js 20 or newer is needed for the frontend (found $(node --version 2>/dev/null || echo none))." >&2
  echo "On Debian bookworm: npm install -g node@20 (a registry package carrying the binary)." >&2
  exit 1
fi

log "Go modules"
go mod download

if [ -z "${SETUP_SKIP_FRONTEND:-}" ] && [ -f frontend/package.json ]; then
  stamp=frontend/node_modules/.setup-stamp
  if [ ! -f "$stamp" ] || [ frontend/package.json -nt "$stamp" ] || { [ -f frontend/package-lock.json ] && [ frontend/package-lock.json -nt "$stamp" ]; }; then
    log "frontend packages"
    # npm ci rejects lockfiles made on this platform; install honours the lockfile.
    (cd frontend && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
fi
# The S3-compatible server of the storage tests and the test command (versitygw,
# posix backend over a folder), built once into bin/ like k6.
VERSITYGW_VERSION=$(sed -n 's/^const VersityGWVersion = "\(.*\)"$/\1/p' devstack/s3.go)
# go install builds it without a version string, so a stamp records which one is there.
if ! [ -x bin/versitygw ] || [ "$(cat bin/.versitygw-version 2>/dev/null)" != "$VERSITYGW_VERSION" ]; then
  log "versitygw ${VERSITYGW_VERSION} (about a minute)"
  mkdir -p bin
  # Outside the repo so the project's go.mod is neither read nor changed.
  (root=$PWD; cd / && GOBIN="$root/bin" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@${VERSITYGW_VERSION}")
  echo "$VERSITYGW_VERSION" > bin/.versitygw-version
fi
# kustomize for operators (kustomize build deploy/k8s/overlays/production): the
# CLI whose kustomize/api is the one go.mod pins, with which go test renders
# the overlays, so both render alike.
KUSTOMIZE_VERSION=v5.8.2
if ! [ -x bin/kustomize ] || [ "$(cat bin/.kustomize-version 2>/dev/null)" != "$KUSTOMIZE_VERSION" ]; then
  log "kustomize ${KUSTOMIZE_VERSION} (about a minute)"
  mkdir -p bin
  (root=$PWD; cd / && GOBIN="$root/bin" GOFLAGS=-buildvcs=false go install "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}")
  echo "$KUSTOMIZE_VERSION" > bin/.kustomize-version
fi
if [ -z "${SETUP_SKIP_K6:-}" ]; then
  # The pinned k6 for the load tests (built once with the Go toolchain, ~2 min).
  loadtest/install-k6.sh >/dev/null
fi
log "ready"
