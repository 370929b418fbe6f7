// Ingestion: page views at a fixed arrival rate, the way every SPA route change
// sends one (seed §4). The edge answers only after JetStream acked the event;
// analytics inserts into ClickHouse and acks after the insert. After the run,
// loadtest/run.sh (check_ingestion) asks ClickHouse over HTTP how many events of
// this run it holds: exactly pageviews_accepted, each id once.
//
//   k6 run -e BASE_URL=... -e PROFILE=average -e RUN_ID=... scenarios/ingestion.js

import { check, fail } from 'k6';
import { SharedArray } from 'k6/data';
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import { RUN_ID, paths, url } from '../lib/config.js';
import { json, latency, postJSON, signed, summary } from '../lib/checks.js';
import { constant } from '../lib/profiles.js';

const pages = new SharedArray('pages', () => JSON.parse(open('../data/pages.json')));
const channels = new SharedArray('channels', () => JSON.parse(open('../data/channels.json')));

// Accepted: 200 with an event id (the event is in JetStream). Refused: any
// other answer (the event may or may not be stored: it makes "exactly" unknowable).
const accepted = new Counter('pageviews_accepted');
const refused = new Counter('pageviews_refused');

// page views per second of the production-like profiles.
const RATE = 200;

const [P95, P99] = latency(100, 250);

export const options = {
  scenarios: {
    pageviews: constant('pageView', RATE),
  },
  thresholds: {
    http_req_failed: ['rate<0.001'],
    checks: ['rate>0.999'],
    'http_req_duration{kind:track}': [`p(95)<${P95}`, `p(99)<${P99}`],
    pageviews_refused: ['count==0'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
};

export function setup() {
  const h = http.get(url(paths.readyz));
  if (h.status !== 200) fail(`target ${url(paths.readyz)} not ready: ${h.status} ${h.body}`);
  return { run: RUN_ID };
}

export function pageView(ctx) {
  const page = pages[Math.floor(Math.random() * pages.length)];
  const ch = channels[Math.floor(Math.random() * channels.length)];
  const res = postJSON(
    paths.pageView,
    { curPageUrl: page, route: page, props: { ltRun: ctx.run } },
    { name: 'page-view', kind: 'track', headers: { 'X-Channel': ch.channel, 'User-Agent': ch.ua } },
  );
  const body = json(res);
  const ok = check(res, {
    'page-view: status 200': (r) => r.status === 200,
    'page-view: event id': () => !!(body && body.event_id),
    'page-view: signed': (r) => signed(r),
  });
  if (res.status === 200 && body && body.event_id) accepted.add(1);
  else refused.add(1);
  return ok;
}

export const handleSummary = summary('ingestion');
