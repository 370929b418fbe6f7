#!/usr/bin/env bash
# The store as a cluster on this machine (README: cluster): three NATS servers
# in a JetStream cluster, PostgreSQL, ClickHouse as two replicas over
# ZooKeeper, two writers, two analytics nodes, two edges behind a balancer,
# every node its own process, data under .data/cluster. Ctrl-C stops everything.
# Flags go to `storefront cluster` (see `bin/storefront cluster -h`),
# e.g. scripts/cluster.sh -works 1000 -addr :8091
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '\033[1;34m[cluster]\033[0m %s\n' "$*" >&2; }

SETUP_SKIP_K6=1 scripts/setup.sh
. scripts/goenv.sh
use_go
mkdir -p bin
if [ -f frontend/package.json ] && [ ! -f frontend/build/client/index.html ]; then
  log "building the frontend"
  (cd frontend && npm run --silent build)
fi
log "building the services"
go build -o bin/storefront ./cmd/storefront
exec bin/storefront cluster "$@"
