// Release spike: a weekday release at 23:00 KST. Readers arrive at a baseline
// rate; at the release instant the arrival rate climbs to the peak in 10 s.
// Each reader opens the today-up and weekday lists, the work's detail, the new
// volume in the viewer and its images. Every one of these is served by the
// edges from memory: the run's after-check (loadtest/run.sh) verifies that the
// writer and PostgreSQL saw no catalog read while it ran.
//
// Each reader also sends what the store's pages track on that path (shell/
// tracking.ts): a page view of the weekday list, a view_content of the detail
// and a page view of the viewer (/viewer?pid=..&no=..), in one batch. The
// analysts' live view reads the spike from these; the counters
// tracked_detail_views, tracked_viewer_opens and tracked_new_volume_opens
// count the ones the edge accepted (the live-spike e2e compares them with it).
//
//   k6 run -e BASE_URL=... -e PROFILE=spike -e RELEASE_PID=... -e RELEASE_VOL=... -e RELEASE_AT=... scenarios/release-spike.js
//
// PROBE_ORIGIN=1 also reads the work from the writer's admin API on every
// iteration: the after-run check must then fail (a test of the check itself).
//
// Without RELEASE_PID the work is the first of today's weekday list and the
// "new" volume is its latest (a deployed store without the admin token).

import { check, fail, sleep } from 'k6';
import { SharedArray } from 'k6/data';
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import { ADMIN_TOKEN, PROFILE, paths, release, url } from '../lib/config.js';
import { apiOK, assetOK, get, json, postJSON, readThresholds, summary } from '../lib/checks.js';
import { ramping } from '../lib/profiles.js';

const channels = new SharedArray('channels', () => JSON.parse(open('../data/channels.json')));
const days = JSON.parse(open('../data/weekdays.json'));

const newVolumeReads = new Counter('new_volume_reads');
const beforeRelease = new Counter('reads_before_release');
const trackedViews = new Counter('tracked_detail_views');
const trackedOpens = new Counter('tracked_viewer_opens');
const trackedNewOpens = new Counter('tracked_new_volume_opens');
const trackRefused = new Counter('tracking_refused');

// baseline and peak readers per second of the production-like spike profile.
const BASE = 20;
const PEAK = 150;
// The baseline runs this long before the ramp; setup() waits so that the ramp
// starts at the release instant.
const PRE = PROFILE === 'smoke' ? 3 : 20;

export const options = {
  scenarios: {
    readers: ramping('reader', BASE, PEAK, { preDuration: `${PRE}s` }),
  },
  thresholds: readThresholds(150, 400),
  setupTimeout: '120s',
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  const h = http.get(url(paths.readyz));
  if (h.status !== 200) fail(`target ${url(paths.readyz)} not ready: ${h.status} ${h.body}`);
  let pid = release.pid;
  let vol = release.vol;
  let at = release.at;
  if (!pid) {
    const l = json(get(paths.weekday('today')));
    if (!l || !l.list || l.list.length === 0) fail('no work in today\'s weekday list');
    pid = l.list[0].pid;
  }
  const d = json(get(paths.detail(pid)));
  if (!d || !d.volList) fail(`detail of ${pid} unavailable`);
  if (!vol) {
    const last = d.volList[d.volList.length - 1];
    vol = last.no;
    at = Date.parse(last.releaseAt);
  }
  // Start the baseline PRE seconds before the release so the ramp meets it.
  const wait = (at - PRE * 1000 - Date.now()) / 1000;
  if (wait > 0) sleep(wait);
  return { pid, vol, at, pages: 3 };
}

export function reader(ctx) {
  const ch = channels[Math.floor(Math.random() * channels.length)];
  const hdr = { 'X-Channel': ch.channel, 'User-Agent': ch.ua };
  const now = Date.now();
  // A second of slack either side of the instant: the edge's clock is not ours.
  const released = now >= ctx.at + 1000;
  const unreleased = now < ctx.at - 1000;
  if (!released) beforeRelease.add(1);

  apiOK(get(paths.todayUp, { headers: hdr }), 'today-up list');
  const day = Math.random() < 0.7 ? 'today' : days[Math.floor(Math.random() * 7)];
  apiOK(get(paths.weekday(day), { headers: hdr, name: 'weekday list' }), 'weekday list');

  const dres = get(paths.detail(ctx.pid), { headers: hdr, name: 'detail' });
  apiOK(dres, 'detail');
  const d = json(dres);
  const vols = (d && d.volList) || [];
  const hasNew = vols.some((v) => v.no === ctx.vol);
  if (released) check(hasNew, { 'detail: new volume listed after the release': (x) => x });
  if (unreleased) check(hasNew, { 'detail: new volume hidden before the release': (x) => !x });

  // The viewer: the new volume once out, else the latest released one; the
  // cover and the public preview pages.
  const open = released ? ctx.vol : vols.length ? vols[vols.length - 1].no : 1;
  // Pictures are negotiated by Accept (AVIF, then WebP, then JPEG).
  const pic = { ...hdr, Accept: 'image/avif,image/webp,*/*' };
  const cover = (d && d.prodInfo && d.prodInfo.thumbUrl) || '/media/none';
  const base = (vols.find((v) => v.no === open) || {}).mediaBase || `/content/${ctx.pid}/${open}/none`;
  const reqs = [['GET', url(`${cover}?w=240`), null, { headers: pic, tags: { name: 'cover', kind: 'asset' } }]];
  for (let n = 1; n <= ctx.pages; n++) {
    reqs.push(['GET', url(`${paths.page(base, n)}?w=720`), null, { headers: pic, tags: { name: 'viewer page', kind: 'asset' } }]);
  }
  const res = http.batch(reqs);
  assetOK(res[0], 'cover', 'image/avif');
  for (let i = 1; i < res.length; i++) assetOK(res[i], 'viewer page', 'image/avif');
  if (released) newVolumeReads.add(1);
  track(ctx, hdr, day, open);
  if (__ENV.PROBE_ORIGIN) {
    http.get(url(paths.adminWork(ctx.pid)), { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, tags: { name: 'origin probe', kind: 'probe' } });
  }
}

// track sends the reader's page views and detail view as the store's pages do
// (one batch; without ids, the edge gives each its own), and counts them once
// the edge accepted them.
function track(ctx, hdr, day, no) {
  // No ltRun prop: the ingestion scenario of the same run counts its own page views by it.
  const props = { channel: hdr['X-Channel'] };
  const list = `/webtoon/weekday?day=${day}`;
  const detail = `/webtoon/detail/${ctx.pid}`;
  const viewer = `/viewer?pid=${ctx.pid}&no=${no}`;
  const events = [
    { type: 'page_view', curPageUrl: list, url: list, props },
    { type: 'view_content', curPageUrl: detail, url: detail, referrer: list, pid: ctx.pid, section: 'WT', props },
    { type: 'page_view', curPageUrl: viewer, url: viewer, referrer: detail, props },
  ];
  const res = postJSON(paths.trackEvents, { events }, { name: 'tracking', kind: 'track', headers: hdr });
  const body = json(res);
  const ok = check(res, {
    'tracking: status 200': (r) => r.status === 200,
    'tracking: an id per event': () => !!(body && body.event_ids && body.event_ids.length === events.length),
  });
  if (!ok) {
    trackRefused.add(1);
    return;
  }
  trackedViews.add(1);
  trackedOpens.add(1);
  if (no === ctx.vol) trackedNewOpens.add(1);
}

export const handleSummary = summary('release-spike');
