#!/usr/bin/env bash
# Creates, through the writer's admin API (via the edge), the work a run is
# about: a weekday webtoon of today's KST weekday whose new volume is released
# LEAD seconds from now (the 23:00 release, moved to now), with wait-for-free,
# paid older volumes, and a running double-coupon event that gives read coupons
# for it. Its cover and every volume's pages are uploaded and processed through
# the media API (loadtest/data/page.jpg; encoded once, every volume reuses it).
# Waits until the edge serves it and processing is done, then prints the
# environment the scenarios take (RELEASE_PID, RELEASE_VOL, RELEASE_AT,
# COUPON_EID).
#
# Usage: loadtest/prepare.sh LEAD_SECONDS [RUN_ID]   (BASE_URL, ADMIN_TOKEN from env)
set -euo pipefail
lead=${1:?lead seconds}
run=${2:-r$(date +%s)}
base=${BASE_URL:-http://127.0.0.1:8080}
token=${ADMIN_TOKEN:-dev-admin-token}
vols=${RELEASE_VOLS:-10} # the new volume is the last one

iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
now=$(date +%s)
at=$((now + lead))
wd=$(TZ=Asia/Seoul date -d "@$at" +%w)
pid="lt${run//[^A-Za-z0-9]/}"

volumes=$(jq -n --argjson n "$vols" --argjson now "$now" --argjson at "$at" '
  [range(1; $n + 1) as $k | {
    no: $k, title: "\($k)화",
    releaseAt: (if $k == $n then $at else $now - ($n - $k) * 86400 end | todate),
    isFree: ($k <= 2),
    buyPrice: (if $k <= 2 then 0 else 300 end), rentPrice: (if $k <= 2 then 0 else 100 end),
    pages: 4, previewPages: 3
  }]')
work=$(jq -n --arg pid "$pid" --arg run "$run" --argjson wd "$wd" --argjson vols "$volumes" '{
  pid: $pid, section: "WT", title: "부하 테스트 연재 \($run)", summary: "k6 release scenario",
  provider: "loadtest", genreId: "21", category1: "romance", authors: [{authorName: "k6"}],
  weekdays: [$wd], updateCycle: "weekly", unit: "화",
  waitForFree: true, waitRecycle: 60, waitExcludeNewest: 1, rentDays: 3,
  volumes: $vols
}')

call() { # method path body
  curl -sS -X "$1" "$base$2" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary "$3" -w '\n%{http_code}'
}
out=$(call POST /admin/api/v1/works "$work")
code=${out##*$'\n'}
[ "$code" = 201 ] || { echo "prepare: create work $pid: HTTP $code: ${out%$'\n'*}" >&2; exit 1; }

event=$(jq -n --arg pid "$pid" --arg run "$run" --arg s "$(iso $((now - 3600)))" --arg e "$(iso $((now + 2 * 86400)))" '{
  kind: "doublecoupon", title: "부하 테스트 더블쿠폰 \($run)", body: "k6",
  section: "WT", pids: [$pid], coupons: 1, startAt: $s, endAt: $e
}')
out=$(call POST /admin/api/v1/events "$event")
code=${out##*$'\n'}
[ "$code" = 201 ] || { echo "prepare: create event: HTTP $code: ${out%$'\n'*}" >&2; exit 1; }
eid=$(printf '%s' "${out%$'\n'*}" | jq -r .id)

# The pages: one upload, four pages of every volume, and the cover.
page="$(dirname "$0")/data/page.jpg"
out=$(call POST /admin/api/v1/media/uploads "$(jq -n --argjson size "$(stat -c %s "$page")" '{size: $size, name: "page.jpg"}')")
[ "${out##*$'\n'}" = 201 ] || { echo "prepare: create upload: ${out}" >&2; exit 1; }
upload=$(printf '%s' "${out%$'\n'*}" | jq -r .upload.id)
curl -fsS -X PUT "$base/admin/api/v1/media/uploads/$upload/parts/1" -H "Authorization: Bearer $token" --data-binary @"$page" >/dev/null
out=$(call POST "/admin/api/v1/media/uploads/$upload/complete" '')
[ "${out##*$'\n'}" = 200 ] || { echo "prepare: complete upload: ${out}" >&2; exit 1; }
for k in $(seq 1 "$vols") cover; do
  if [ "$k" = cover ]; then job=$(jq -n --arg pid "$pid" --arg u "$upload" '{target: "cover", pid: $pid, uploads: [$u]}')
  else job=$(jq -n --arg pid "$pid" --arg u "$upload" --argjson no "$k" '{target: "volume", pid: $pid, no: $no, uploads: [$u, $u, $u, $u]}'); fi
  out=$(call POST /admin/api/v1/media/jobs "$job")
  [ "${out##*$'\n'}" = 202 ] || { echo "prepare: media job $k: ${out}" >&2; exit 1; }
done

# The edge learns the work through outbox -> relay -> KV -> watch; the pages
# once every job is done.
for _ in $(seq 1 1200); do
  if curl -fsS "$base/home/api/v1/products/$pid" 2>/dev/null | jq -e '(.volList | length > 0) and (.prodInfo.thumbUrl | startswith("/media/")) and all(.volList[]; .mediaBase != null)' >/dev/null 2>&1 &&
    curl -fsS "$base/admin/api/v1/media/jobs?pid=$pid" -H "Authorization: Bearer $token" 2>/dev/null | jq -e --argjson n "$((vols + 1))" '[.jobs[] | select(.state == "done")] | length == $n' >/dev/null 2>&1; then
    printf 'RELEASE_PID=%s\nRELEASE_VOL=%s\nRELEASE_AT=%s\nCOUPON_EID=%s\n' "$pid" "$vols" "$(iso "$at")" "$eid"
    exit 0
  fi
  sleep 0.1
done
echo "prepare: the edge did not serve $pid with its pages within 120 s" >&2
exit 1
