#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and starts the
# whole store on this machine (our own PostgreSQL and ClickHouse under .data/dev,
# embedded NATS, demo catalog, writer, analytics, edge serving the frontend).
# Ctrl-C stops everything. Flags go to `storefront up` (see `bin/storefront up -h`),
# e.g. scripts/run.sh -works 100000 -regen
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '\033[1;34m[run]\033[0m %s\n' "$*" >&2; }

SETUP_SKIP_K6=1 scripts/setup.sh
# The Go toolchain setup found or fetched (it may live under .data/toolchain).
. scripts/goenv.sh
use_go
mkdir -p bin
if [ -f frontend/package.json ]; then
  newest=$(find frontend/app frontend/public frontend/package.json frontend/vite.config.ts frontend/react-router.config.ts -newer frontend/build/client/index.html 2>/dev/null | head -1 || true)
  if [ ! -f frontend/build/client/index.html ] || [ -n "$newest" ]; then
    log "building the frontend"
    (cd frontend && npm run --silent build)
  fi
fi
log "building the services"
go build -o bin/storefront ./cmd/storefront
# On a first run the store opens once the covers and banners are processed;
# the demo's volume pages follow (README: first run).
exec bin/storefront up -wait-media "${DEMO_WAIT_MEDIA:-pictures}" "$@"
