#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (func FuzzXxx(f *testing.F) in
# any *_test.go) for FUZZ_TIME each, one target at a time (go test -fuzz takes
# one target of one package per run).
#
#   scripts/fuzz.sh                      # 10s per target
#   FUZZ_TIME=5m scripts/fuzz.sh         # longer, on demand
#   FUZZ_MATCH=Edge FUZZ_TIME=1m scripts/fuzz.sh   # only targets matching a regexp
#   FUZZ_SKIP=EdgeRead scripts/fuzz.sh             # all but the targets matching a regexp
#
# Plain `go test` already runs every target's seed corpus as a test; this
# script mutates inputs beyond it. Targets that need PostgreSQL (money and
# member) use DATABASE_URL when set (the test command starts one) and
# otherwise start a private server, which takes a few seconds more.
#
# A target that fails leaves the input that broke it in
# <package>/testdata/fuzz/<Target>/; fix the bug and commit that file: it
# becomes part of the seed corpus every `go test` runs. The script runs every
# target, prints a summary and exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
# Go as setup.sh left it (maybe ours under .data/toolchain).
. scripts/goenv.sh
use_go || { echo "no Go $(go_want): run scripts/setup.sh" >&2; exit 1; }

FUZZ_TIME=${FUZZ_TIME:-10s}
FUZZ_MATCH=${FUZZ_MATCH:-.}
FUZZ_SKIP=${FUZZ_SKIP:-}
parallel=()
if [ -n "${FUZZ_PARALLEL:-}" ]; then parallel=(-parallel "$FUZZ_PARALLEL"); fi

# "dir target" for every fuzz target, in a stable order.
mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' \
	--exclude-dir=node_modules --exclude-dir=.data --exclude-dir=.git . |
	sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' | sort -u | grep -E " .*${FUZZ_MATCH}" | { if [ -n "$FUZZ_SKIP" ]; then grep -Ev " .*${FUZZ_SKIP}"; else cat; fi; } || true)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no targets match '$FUZZ_MATCH'" >&2
	exit 1
fi

# corpus_count DIR TARGET: how many inputs the target's corpus folder holds.
corpus_count() {
	find "$1/testdata/fuzz/$2" -type f 2>/dev/null | wc -l
}

echo "fuzz: ${#targets[@]} targets, $FUZZ_TIME each"
failed=()
start=$SECONDS
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	t0=$SECONDS
	log=$(mktemp)
	note=""
	for try in 1 2; do
		before=$(corpus_count "$dir" "$name")
		if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZ_TIME" "${parallel[@]}" "./$dir" >"$log" 2>&1; then
			ok=1
			break
		fi
		ok=0
		# Go 1.26's fuzz coordinator can report its own -fuzztime deadline as
		# a failure ("context deadline exceeded" on a line of its own, no
		# file:line, no failing input written): golang/go#75804, fixed in
		# Go 1.27. A real failure always writes its input, so only a run that
		# wrote none and printed exactly that is run once more.
		if [ "$try" = 1 ] && [ "$(corpus_count "$dir" "$name")" = "$before" ] &&
			grep -Eq '^[[:space:]]+context deadline exceeded$' "$log" &&
			! grep -Eq '_test\.go:[0-9]+:' "$log"; then
			note=", run again after golang/go#75804"
			continue
		fi
		break
	done
	if [ "$ok" = 1 ]; then
		execs=$(grep -Eo 'execs: [0-9]+' "$log" | tail -1)
		echo "ok    $dir $name ($((SECONDS - t0))s, ${execs:-execs: ?}$note)"
	else
		echo "FAIL  $dir $name ($((SECONDS - t0))s)"
		grep -v '^fuzz: elapsed' "$log" | tail -40 | sed 's/^/      /'
		failed+=("$dir $name")
	fi
	rm -f "$log"
done
echo "fuzz: $((SECONDS - start))s in all"
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: ${#failed[@]} failed:" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
