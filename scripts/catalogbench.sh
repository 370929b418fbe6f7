#!/usr/bin/env bash
# Issue 35's benchmark at a real store's size (cmd/catalogbench/README.md):
# builds the edge of this tree and the benchmark, then runs it. The generated
# catalog is cached under .data/catalogbench/<params hash> between runs.
#   scripts/catalogbench.sh                                   full size: 150,000 works, 15,000,000 volumes
#   scripts/catalogbench.sh -small                            the test command's variant (2,000 works, 100,000 volumes)
#   scripts/catalogbench.sh -works 30000 -volumes 3000000     any other size; see -help for every flag
# Exits non-zero on functional problems only (edge not ready, HTTP errors),
# never on durations.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh
use_go
bin=.data/catalogbench/bin
mkdir -p "$bin"
go build -o "$bin/edge" ./edge
go build -o "$bin/catalogbench" ./cmd/catalogbench
exec "$bin/catalogbench" -data .data -edge "$bin/edge" "$@"
