#!/usr/bin/env bash
# The test of scripts/setup.sh on a machine without Go (issue 24 item 15): with
# every go hidden from PATH, setup fetches go.mod's toolchain from the Go
# module proxy, unpacks it and uses it (go mod download runs with it); with
# only an older go on PATH it does the same. The zip is kept under .data (git-
# ignored), so only the first run downloads its ~70 MB; each run unpacks it
# into a fresh folder. Run by scripts/test.sh; needs the proxy (reachable here
# and in CI), so it fails rather than skips without it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/goenv.sh
want=$(go_want)
fail() { echo "setup_test: FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/setup-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# PATH without any directory holding a go binary.
nogo=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/go" ] && nogo=${nogo:+$nogo:}$d
done
run_setup() { # PATH, log file
  env PATH="$1" SETUP_GO_SEARCH= STOREFRONT_TOOLCHAIN="$tmp/toolchain" STOREFRONT_GO_CACHE="$root/.data/toolchain/cache" \
    SETUP_SKIP_FRONTEND=1 SETUP_SKIP_K6=1 scripts/setup.sh >"$2" 2>&1
}

# 1. No Go at all.
env PATH="$nogo" bash -c 'command -v go' >/dev/null 2>&1 && fail "go still on the hidden PATH"
run_setup "$nogo" "$tmp/1.log" || { cat "$tmp/1.log" >&2; fail "setup without Go failed"; }
got=$(GOTOOLCHAIN=local "$tmp/toolchain/go$want/bin/go" version) || fail "no go in $tmp/toolchain/go$want"
case "$got" in *" go$want "*) ;; *) fail "installed toolchain says: $got" ;; esac
grep -q "Go $want installed" "$tmp/1.log" || { cat "$tmp/1.log" >&2; fail "setup did not say it installed Go"; }
grep -q "ready" "$tmp/1.log" || { cat "$tmp/1.log" >&2; fail "setup did not finish"; }

# 2. Only an older go on PATH (bookworm's golang is 1.19): it is not used.
mkdir -p "$tmp/oldgo"
cat >"$tmp/oldgo/go" <<'OLD'
#!/bin/sh
if [ "$1 $2" = "env GOVERSION" ]; then echo go1.19.8; exit 0; fi
echo "the old go was used: $*" >&2
exit 3
OLD
chmod +x "$tmp/oldgo/go"
rm -rf "$tmp/toolchain/go$want"
run_setup "$tmp/oldgo:$nogo" "$tmp/2.log" || { cat "$tmp/2.log" >&2; fail "setup with an old Go failed"; }
grep -q "Go $want installed" "$tmp/2.log" || { cat "$tmp/2.log" >&2; fail "setup kept the old Go"; }
grep -q "the old go was used" "$tmp/2.log" && { cat "$tmp/2.log" >&2; fail "setup ran the old Go"; }

# 3. Run again: ours is found, nothing fetched or unpacked.
run_setup "$nogo" "$tmp/3.log" || { cat "$tmp/3.log" >&2; fail "second setup failed"; }
grep -q "installed\|fetching" "$tmp/3.log" && { cat "$tmp/3.log" >&2; fail "second setup installed Go again"; }
echo "setup_test: ok (Go $want from the module proxy)"
