#!/usr/bin/env bash
# Fault drills (see drills/README.md): real service binaries under load, one
# piece broken with a real signal, then what the clients saw and what the
# databases hold is checked.
#
#   scripts/drills.sh                 the long variants (60 s ClickHouse stop,
#                                     minute-long loads, several kills): ~10 min
#   DRILLS_LONG=0 scripts/drills.sh   the short variants (what `go test ./...`
#                                     of the test command runs): ~2 min
#   scripts/drills.sh -run Postgres   extra arguments go to go test
#
# PostgreSQL and ClickHouse instances that a drill stops are its own (started
# through devstack in a temporary folder). The other drills take a fresh
# database on DATABASE_URL when it is set, else on a private server.
set -euo pipefail
cd "$(dirname "$0")/.."
# Go as setup.sh left it (maybe ours under .data/toolchain).
. scripts/goenv.sh
use_go || { echo "no Go $(go_want): run scripts/setup.sh" >&2; exit 1; }
export DRILLS_LONG=${DRILLS_LONG:-1}
exec go test -count=1 -timeout 60m -v "$@" ./drills/
