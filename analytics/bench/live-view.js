// The live release view under a release-like tracking load: k6 posts
// tracking batches to the edge (one work's detail views and viewer opens, as
// in a release minute) at a fixed rate while an analyst's live view asks
// every second, as the screen does every 3 s for a few analysts. Reports the
// live answer's latency and whether its totals keep up with what was sent.
//
//   BASE_URL=http://127.0.0.1:8080 bin/k6 run analytics/bench/live-view.js
//   (RATE batches/s, default 100; BATCH events per batch, default 50; DURATION, default 30s)
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Trend, Counter } from 'k6/metrics';

const BASE = __ENV.BASE_URL || 'http://127.0.0.1:8080';
const ADMIN = __ENV.ADMIN_TOKEN || 'dev-admin-token';
const RATE = Number(__ENV.RATE || 100);
const BATCH = Number(__ENV.BATCH || 50);
const DURATION = __ENV.DURATION || '30s';
const liveMs = new Trend('live_report_ms', true);
const sent = new Counter('events_sent');

export const options = {
  scenarios: {
    load: { executor: 'constant-arrival-rate', rate: RATE, timeUnit: '1s', duration: DURATION, preAllocatedVUs: 40, maxVUs: 200, exec: 'track' },
    live: { executor: 'constant-arrival-rate', rate: 1, timeUnit: '1s', duration: DURATION, preAllocatedVUs: 2, exec: 'live' },
  },
  // A refresh must answer within the screen's 3 s period.
  thresholds: { 'http_req_failed{scenario:load}': ['rate<0.01'], 'live_report_ms': ['p(99)<3000'] },
};

export function setup() {
  const email = `bench-${Date.now()}@example.com`;
  const jar = http.cookieJar();
  const res = http.post(`${BASE}/home/api/v1/auth/signup`, JSON.stringify({ email, password: 'bench-pass-123' }), { headers: { 'Content-Type': 'application/json' } });
  const uid = res.json('authInfo.uid');
  http.put(`${BASE}/admin/api/v1/users/${uid}/role`, JSON.stringify({ role: 'analyst' }), { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` } });
  http.get(`${BASE}/home/api/v1/auth/me`);
  const cookies = jar.cookiesForURL(`${BASE}/`);
  const c = cookies.sf_analyst;
  if (!c) throw new Error('no analyst cookie: is the admin token right?');
  // The reports check the member session beside the analyst cookie (issue 31).
  return { cookie: `sf_analyst=${c[0]}; sf_session=${cookies.sf_session[0]}`, pid: `bench-live-${Date.now()}` };
}

function uuid() {
  return 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => ((Math.random() * 16) | 0).toString(16));
}

export function track(d) {
  const events = [];
  for (let i = 0; i < BATCH; i++) {
    events.push(i % 2 === 0
      ? { id: uuid(), type: 'view_content', url: `/webtoon/detail/${d.pid}`, pid: d.pid, section: 'WT' }
      : { id: uuid(), type: 'page_view', curPageUrl: `/viewer?pid=${d.pid}&no=1` });
  }
  const r = http.post(`${BASE}/home/api/v1/tracking/events`, JSON.stringify({ events }), { headers: { 'Content-Type': 'application/json', 'X-Channel': 'AW' } });
  if (check(r, { 'tracking 200': (x) => x.status === 200 })) sent.add(BATCH);
}

export function live(d) {
  const r = http.get(`${BASE}/analytics/api/v1/reports/live?minutes=5`, { headers: { Cookie: d.cookie } });
  check(r, { 'live 200': (x) => x.status === 200 });
  liveMs.add(r.timings.duration);
}

export function teardown(d) {
  // Once ingestion caught up (the count stops moving), the live window
  // should hold every event sent: compare the log line with events_sent.
  let got = -1;
  for (let i = 0; i < 60; i++) {
    const r = http.get(`${BASE}/analytics/api/v1/reports/live?minutes=10`, { headers: { Cookie: d.cookie } });
    const w = (r.json('topWorks') || []).find((x) => x.pid === d.pid);
    const now = w ? w.views + w.opens : 0;
    if (now === got && now > 0) break;
    got = now;
    sleep(1);
  }
  console.log(`live view counts ${got} events of the work`);
}
