// Load profiles shared by every scenario (the grafana/quickpizza way): a
// scenario states its own baseline and peak arrival rates (iterations per
// second) for a production-like "spike"; a profile shapes them in time.
//
//   smoke    seconds long, a handful of iterations: does everything work at all
//   average  the baseline for a few minutes: an ordinary evening
//   spike    baseline, then the peak reached in 10 s, held, then back: 23:00 KST
//   stress   climbs past the peak in steps: where does it break
//   soak     the baseline for 30 minutes: leaks, growing queues, stale caches
//
// Rates and durations can be overridden with BASE_RATE, PEAK_RATE and HOLD
// (e.g. -e PEAK_RATE=400 -e HOLD=60s).

import { PROFILE } from './config.js';

function num(name, def) {
  const v = __ENV[name];
  return v ? parseFloat(v) : def;
}

// shape returns the stages of a ramping-arrival-rate executor for profile p
// given the baseline and peak rates. preDuration is how long the baseline runs
// before the ramp (the release scenario aligns the ramp with the release instant).
export function shape(p, base, peak, preDuration) {
  base = num('BASE_RATE', base);
  peak = num('PEAK_RATE', peak);
  const hold = __ENV.HOLD || null;
  switch (p) {
    case 'smoke':
      return {
        start: Math.max(1, Math.min(base, 2)),
        stages: [
          { duration: preDuration || '3s', target: Math.max(1, Math.min(base, 2)) },
          { duration: '3s', target: Math.max(2, Math.min(peak, 5)) },
          { duration: hold || '3s', target: Math.max(2, Math.min(peak, 5)) },
        ],
      };
    case 'average':
      return { start: base, stages: [{ duration: '30s', target: base }, { duration: hold || '3m', target: base }] };
    case 'spike':
      return {
        start: base,
        stages: [
          { duration: preDuration || '20s', target: base },
          { duration: '10s', target: peak }, // baseline -> peak in 10 s: the release instant
          { duration: hold || '40s', target: peak },
          { duration: '10s', target: base },
          { duration: '10s', target: base },
        ],
      };
    case 'stress':
      return {
        start: base,
        stages: [
          { duration: preDuration || '20s', target: base },
          { duration: '30s', target: peak },
          { duration: '30s', target: peak * 1.5 },
          { duration: '30s', target: peak * 2 },
          { duration: hold || '30s', target: peak * 2 },
          { duration: '20s', target: 0 },
        ],
      };
    case 'soak':
      return { start: base, stages: [{ duration: '1m', target: base }, { duration: hold || '30m', target: base }] };
    default:
      throw new Error(`unknown profile ${p} (smoke, average, spike, stress, soak)`);
  }
}

// ramping returns a ramping-arrival-rate scenario running exec under the
// profile. vus bounds the virtual users k6 may use to keep the rate.
export function ramping(exec, base, peak, opts = {}) {
  const s = shape(opts.profile || PROFILE, base, peak, opts.preDuration);
  const top = Math.max(...s.stages.map((x) => x.target), s.start);
  return {
    executor: 'ramping-arrival-rate',
    exec,
    startRate: s.start,
    timeUnit: '1s',
    stages: s.stages,
    preAllocatedVUs: opts.preAllocatedVUs || Math.ceil(Math.min(top, 50)),
    maxVUs: opts.maxVUs || Math.ceil(Math.max(10, top * 4)),
    gracefulStop: '10s',
  };
}

// constant returns a constant-arrival-rate scenario (ingestion: a fixed rate
// is what makes "exactly the events sent" checkable at a known throughput).
export function constant(exec, rate, opts = {}) {
  const p = opts.profile || PROFILE;
  rate = num('RATE', rate);
  const durations = { smoke: '5s', average: '2m', spike: '1m', stress: '2m', soak: '30m' };
  if (!durations[p]) throw new Error(`unknown profile ${p}`);
  const r = p === 'smoke' ? Math.min(rate, 20) : p === 'stress' ? rate * 3 : rate;
  return {
    executor: 'constant-arrival-rate',
    exec,
    rate: r,
    timeUnit: '1s',
    duration: __ENV.DURATION || durations[p],
    preAllocatedVUs: opts.preAllocatedVUs || Math.ceil(Math.min(r, 50)),
    maxVUs: opts.maxVUs || Math.ceil(Math.max(10, r * 2)),
    gracefulStop: '10s',
  };
}
