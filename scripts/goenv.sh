# Sourced by the scripts: finds a Go toolchain as new as go.mod asks and puts
# it first on PATH (use_go), and fetches one from the Go module proxy when
# there is none (fetch_go, called by setup.sh). The proxy serves the toolchain
# as the module golang.org/toolchain, version v0.0.1-go<version>.<os>-<arch>:
# the same zip GOTOOLCHAIN downloads, so a bare Debian machine needs no Go of
# its own. Ours lives in .data/toolchain/go<version> (git-ignored).
#   STOREFRONT_TOOLCHAIN   where fetched toolchains go (default .data/toolchain)
#   STOREFRONT_GO_CACHE    where the downloaded zips are kept (default <that>/cache)
#   SETUP_GO_SEARCH        other go binaries to try besides PATH (default /usr/local/go/bin/go)
#   GOPROXY                as for go (first proxy of the list; "direct"/"off" mean the public one)

goenv_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
go_want() { sed -n 's/^go //p' "$goenv_root/go.mod"; }
go_dir() { echo "${STOREFRONT_TOOLCHAIN:-$goenv_root/.data/toolchain}"; }

# version_ge A B: dotted version A >= B.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

# go_ok BIN: BIN runs and is at least go.mod's version. GOTOOLCHAIN=local so
# that an older go does not switch toolchains by itself to answer.
go_ok() {
  local v
  [ -x "$1" ] || return 1
  v=$(GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null) || return 1
  v=${v#go}
  version_ge "${v%%[!0-9.]*}" "$(go_want)"
}

# use_go: puts the first good go on PATH; fails when there is none.
use_go() {
  local c
  for c in "$(command -v go 2>/dev/null || true)" ${SETUP_GO_SEARCH-/usr/local/go/bin/go} "$(go_dir)/go$(go_want)/bin/go"; do
    if [ -n "$c" ] && go_ok "$c"; then
      PATH="$(dirname "$c"):$PATH"
      export PATH
      return 0
    fi
  done
  return 1
}

# fetch_go: downloads go.mod's toolchain from the module proxy (the zip is kept
# in the cache), checks that it runs and reports that version, then moves it
# into place. Needs curl and unzip.
fetch_go() {
  local want arch proxy ver url cache zip tmp src dest
  want=$(go_want)
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    i?86) arch=386 ;;
    *) echo "no Go toolchain for $(uname -m) on the module proxy" >&2; return 1 ;;
  esac
  proxy=${GOPROXY:-https://proxy.golang.org}
  proxy=${proxy%%[,|]*}
  case "$proxy" in direct | off | "") proxy=https://proxy.golang.org ;; esac
  ver="v0.0.1-go$want.linux-$arch"
  url="${proxy%/}/golang.org/toolchain/@v/$ver.zip"
  dest="$(go_dir)/go$want"
  cache=${STOREFRONT_GO_CACHE:-$(go_dir)/cache}
  zip="$cache/$ver.zip"
  mkdir -p "$cache" "$(go_dir)" || return 1
  if [ ! -s "$zip" ]; then
    echo "fetching Go $want from $url" >&2
    curl -fsSL --retry 3 -o "$zip.part" "$url" || { rm -f "$zip.part"; return 1; }
    mv "$zip.part" "$zip"
  fi
  tmp=$(mktemp -d "$(go_dir)/unpack.XXXXXX") || return 1
  if ! unzip -q "$zip" -d "$tmp"; then
    # A cut download: drop it, so the next run fetches it again.
    rm -rf "$tmp" "$zip"
    return 1
  fi
  src="$tmp/golang.org/toolchain@$ver"
  # Module zips keep no file modes: the binaries are made executable as the
  # go command does for GOTOOLCHAIN.
  chmod +x "$src"/bin/* "$src"/pkg/tool/*/* 2>/dev/null || true
  if ! GOTOOLCHAIN=local "$src/bin/go" version 2>/dev/null | grep -q "go$want "; then
    echo "the toolchain from $url does not run as Go $want" >&2
    rm -rf "$tmp" "$zip"
    return 1
  fi
  rm -rf "$dest"
  mv "$src" "$dest" || return 1
  rm -rf "$tmp"
  echo "Go $want installed in $dest" >&2
}
