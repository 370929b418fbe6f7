#!/usr/bin/env bash
# Builds the store's OCI images without a container engine (deploy/images):
# the four binaries, the SPA if it is not built, then one OCI layout per image
# under .data/images (or $IMAGES_OUT). It builds the layouts twice and fails
# unless both give the same digests (reproducible), then checks each image's
# configuration and contents, and as root starts each binary under chroot.
#   IMAGE_VERSION, IMAGE_REVISION (default: git commit), SOURCE_DATE_EPOCH
#   (default: the commit's time) label the images.
# Push with any OCI tool, e.g. `skopeo copy oci:.data/images/edge docker://registry/storefront-edge:1.0`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh
use_go
log() { printf '\033[1;34m[images]\033[0m %s\n' "$*" >&2; }
out=${IMAGES_OUT:-.data/images}
bins=bin/images
mkdir -p "$bins" "$out"
export IMAGE_REVISION=${IMAGE_REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

log "binaries"
# -trimpath and no VCS stamp: the binary depends on the sources, not on where
# they were checked out. One build configuration for all four (cgo on: the
# writer and the launcher link libvips), so the packages compile once; the
# edge and analytics then link only glibc, which their images carry.
go build -trimpath -buildvcs=false -o "$bins/" ./edge ./writer ./analytics ./cmd/storefront
go build -o bin/buildimages ./deploy/images/buildimages
if [ ! -f frontend/build/client/index.html ]; then
  log "frontend build"
  (cd frontend && npm run --silent build)
fi
log "images (twice: the digests must agree)"
bin/buildimages -bin "$bins" -out "$out.again" | awk '{print $1, $2}' >"$out.digests.again"
bin/buildimages -bin "$bins" -out "$out" | tee -a /dev/stderr | awk '{print $1, $2}' >"$out.digests"
rm -rf "$out.again"
if ! cmp -s "$out.digests" "$out.digests.again"; then
  log "NOT reproducible: two builds of the same inputs differ"
  diff "$out.digests" "$out.digests.again" >&2 || true
  exit 1
fi
run=
[ "$(id -u)" -eq 0 ] && command -v chroot >/dev/null && run=-run
log "checking the images ${run:+(and running each binary under chroot)}"
bin/buildimages -check $run -bin "$bins" -out "$out"
