// Shared checks, request helpers, thresholds and the run summary.

import http from 'k6/http';
import { check } from 'k6';
import crypto from 'k6/crypto';
import { CHANNEL, PROFILE, RESULTS_DIR, url } from './config.js';

// SIG_VERSION is the response signature version the requests ask for.
const SIG_VERSION = __ENV.SIG_VERSION || '2';

// headers of the seed's HTTP helper (§7): the channel, a random request token
// (the answer is signed over it) and no caching.
export function apiHeaders(extra) {
  return Object.assign(
    {
      'X-Channel': CHANNEL,
      'X-Request-Token': token(),
      // the store's pages ask for SFS2 (contract/signature.go); SIG_VERSION=1 checks old clients' SFS1
      'X-Signature-Version': SIG_VERSION,
      'Cache-Control': 'no-cache',
      Accept: 'application/json',
    },
    extra || {},
  );
}

export function token() {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1e12).toString(36)}`;
}

// get and post call the target with the API headers. o.name groups URLs with
// ids in k6's metrics (tag "name"); o.kind is api (reads from memory), asset
// (images, text) or write (member and money calls) for the thresholds.
export function get(path, o) {
  o = o || {};
  return http.get(url(path), params(o, apiHeaders(o.headers), path, 'api'));
}

export function postJSON(path, body, o) {
  o = o || {};
  const h = apiHeaders(Object.assign({ 'Content-Type': 'application/json' }, o.headers || {}));
  return http.post(url(path), body === null ? null : JSON.stringify(body), params(o, h, path, 'write'));
}

// o.expect lists the statuses that are not failures (e.g. a 409 the scenario provokes).
function params(o, headers, path, kind) {
  const p = { headers, tags: { name: o.name || path, kind: o.kind || kind } };
  if (o.timeout) p.timeout = o.timeout;
  if (o.expect) p.responseCallback = http.expectedStatuses(...o.expect);
  return p;
}

export function json(res) {
  try {
    return res.json();
  } catch (e) {
    return null;
  }
}

// signed reports whether the answer carries the response signature in the
// version asked for (contract/signature.go):
//   SFS1: "SFS1 " + hex SHA-256(status \n token \n body)
//   SFS2: "SFS2 " + hex SHA-256(hex SHA-256(body) \n status \n token)
export function signed(res) {
  const tok = res.request.headers['X-Request-Token'];
  const ver = res.request.headers['X-Signature-Version'];
  const sig = res.headers.Authorization;
  if (!tok || !sig) return false;
  if (ver && ver[0] === '2') {
    return sig === 'SFS2 ' + crypto.sha256(`${crypto.sha256(res.body, 'hex')}\n${res.status}\n${tok[0]}`, 'hex');
  }
  return sig === 'SFS1 ' + crypto.sha256(`${res.status}\n${tok[0]}\n${res.body}`, 'hex');
}

// apiOK checks a JSON answer: the status, the envelope's header.code and the signature.
export function apiOK(res, what, status) {
  status = status || 200;
  const body = json(res);
  return check(res, {
    [`${what}: status ${status}`]: (r) => r.status === status,
    [`${what}: envelope`]: () => body !== null && body.header && (body.header.code === status || body.header.code === 200),
    [`${what}: signed`]: (r) => signed(r),
  });
}

// assetOK checks an image or text answer.
export function assetOK(res, what, ctype) {
  return check(res, {
    [`${what}: status 200`]: (r) => r.status === 200,
    [`${what}: ${ctype}`]: (r) => (r.headers['Content-Type'] || '').indexOf(ctype) === 0,
  });
}

// latency returns the p95 and p99 limits in ms: the scenario's targets, or
// P95/P99 from the environment. The smoke profile only guards against hangs
// (it runs inside the test command on a shared two-core machine).
export function latency(p95, p99) {
  if (PROFILE === 'smoke') return [__ENV.P95 || 3000, __ENV.P99 || 10000];
  return [__ENV.P95 || p95, __ENV.P99 || p99];
}

// readThresholds are the release-time targets of reads served from memory.
export function readThresholds(p95, p99) {
  [p95, p99] = latency(p95, p99);
  return {
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    'http_req_duration{kind:api}': [`p(95)<${p95}`, `p(99)<${p99}`],
    'http_req_duration{kind:asset}': [`p(95)<${p95}`, `p(99)<${p99}`],
  };
}

// writeThresholds are the targets of member and money calls (PostgreSQL).
export function writeThresholds(p95, p99) {
  [p95, p99] = latency(p95, p99);
  return {
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    'http_req_duration{kind:write}': [`p(95)<${p95}`, `p(99)<${p99}`],
  };
}

function fmt(v) {
  if (v === undefined || v === null) return '-';
  if (typeof v !== 'number') return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
}

// textSummary renders the metrics that matter (no remote jslib here).
export function textSummary(data, title) {
  const lines = [`== ${title} ==`];
  const m = data.metrics;
  const pick = (name) => m[name] && m[name].values;
  const reqs = pick('http_reqs');
  if (reqs) lines.push(`requests        ${fmt(reqs.count)} (${fmt(reqs.rate)}/s)`);
  const failed = pick('http_req_failed');
  if (failed) lines.push(`failed          ${fmt(100 * failed.rate)}%`);
  const iters = pick('iterations');
  if (iters) lines.push(`iterations      ${fmt(iters.count)} (${fmt(iters.rate)}/s)`);
  const dropped = pick('dropped_iterations');
  if (dropped) lines.push(`dropped iters   ${fmt(dropped.count)}`);
  for (const name of Object.keys(m).sort()) {
    const v = m[name].values;
    if (m[name].type === 'trend' && name.indexOf('http_req_duration') === 0) {
      lines.push(`${name.padEnd(40)} avg ${fmt(v.avg)} med ${fmt(v.med)} p95 ${fmt(v['p(95)'])} p99 ${fmt(v['p(99)'])} max ${fmt(v.max)} ms`);
    } else if (m[name].type === 'counter' && name.indexOf('http_') !== 0 && name !== 'iterations' && name !== 'data_sent' && name !== 'data_received' && name !== 'dropped_iterations') {
      lines.push(`${name.padEnd(40)} ${fmt(v.count)}`);
    }
  }
  const ch = pick('checks');
  if (ch) lines.push(`checks          ${fmt(100 * ch.rate)}% of ${fmt(ch.passes + ch.fails)}`);
  for (const [name, t] of Object.entries(m)) {
    if (!t.thresholds) continue;
    for (const [expr, r] of Object.entries(t.thresholds)) {
      lines.push(`threshold ${r.ok ? 'ok  ' : 'FAIL'} ${name} ${expr}`);
    }
  }
  // failed checks by name, so a smoke failure says what broke
  const failedChecks = [];
  const walk = (g) => {
    for (const c of g.checks || []) if (c.fails > 0) failedChecks.push(`  ${c.name}: ${c.fails} failed, ${c.passes} passed`);
    for (const s of g.groups || []) walk(s);
  };
  if (data.root_group) walk(data.root_group);
  if (failedChecks.length) lines.push('failed checks:', ...failedChecks);
  return lines.join('\n') + '\n';
}

// summary is each scenario's handleSummary: JSON for the runner and a text summary.
export function summary(name) {
  return (data) => ({
    stdout: textSummary(data, name),
    [`${RESULTS_DIR}/${name}.json`]: JSON.stringify(data, null, 2),
    [`${RESULTS_DIR}/${name}.txt`]: textSummary(data, name),
  });
}
