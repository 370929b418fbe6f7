#!/usr/bin/env bash
# Installs the pinned k6 into <repo>/bin (GOBIN) unless that exact version is already there.
# k6 is built from source with the Go toolchain because the Go proxy is the only way in here
# (about two minutes on two cores). Usage: loadtest/install-k6.sh
set -euo pipefail

K6_VERSION="${K6_VERSION:-v1.8.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
K6="$BIN/k6"

if [[ -x "$K6" ]] && "$K6" version 2>/dev/null | grep -q "k6 ${K6_VERSION}"; then
  echo "k6 ${K6_VERSION} already installed at $K6"
  exit 0
fi

mkdir -p "$BIN"
echo "building k6 ${K6_VERSION} into $BIN (about two minutes)..."
# Outside the repo so the project's go.mod is neither read nor changed.
cd /
GOBIN="$BIN" GOFLAGS=-buildvcs=false go install "go.k6.io/k6@${K6_VERSION}"
"$K6" version
