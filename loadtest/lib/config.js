// The target and every path the scenarios call, in one place. The paths follow
// the real services (edge/server, writer/auth, writer/money, writer/admin,
// analytics); a path that changes changes here only.
//
// Environment (k6 -e NAME=value or the process environment):
//   BASE_URL      the edge (the store's one origin), default http://127.0.0.1:8080
//   ADMIN_TOKEN   bearer token of the writer admin API (through the edge), default dev-admin-token
//   RUN_ID        tags everything this run creates (members, page views), default derived from the clock
//   PROFILE       smoke, average, spike, stress or soak (see lib/profiles.js)
//   RELEASE_PID   the work whose new volume is released (made by loadtest/prepare.sh); empty = discover
//   RELEASE_VOL   its new volume number
//   RELEASE_AT    the release instant, ISO 8601
//   CHANNEL       X-Channel sent on every call (default AW, Android web)

export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
export const ADMIN_TOKEN = __ENV.ADMIN_TOKEN || 'dev-admin-token';
export const PROFILE = __ENV.PROFILE || 'smoke';
export const CHANNEL = __ENV.CHANNEL || 'AW';
export const RUN_ID = __ENV.RUN_ID || `r${Date.now().toString(36)}`;
// Results land beside the scripts unless told otherwise (handleSummary).
export const RESULTS_DIR = __ENV.RESULTS_DIR || 'loadtest/results';

export const release = {
  pid: __ENV.RELEASE_PID || '',
  vol: parseInt(__ENV.RELEASE_VOL || '0', 10),
  at: __ENV.RELEASE_AT ? Date.parse(__ENV.RELEASE_AT) : 0,
};

const api = '/home/api/v1';

export const paths = {
  // ops (edge main port)
  healthz: '/healthz',
  readyz: '/readyz',
  // public reads, served by the edge from memory (edge/server/api.go, api_more.go)
  home: `${api}/home`,
  todayUp: `${api}/webtoon/todayup`,
  weekday: (day) => `${api}/webtoon/weekday/${day}`, // sun..sat or today
  webtoonGenre: (g) => `${api}/webtoon/genre/${g}`,
  ranking: `${api}/rankings`,
  detail: (pid) => `${api}/products/${pid}`,
  volumes: (pid) => `${api}/products/${pid}/volumes`,
  // processed pictures (contract/media.go): a work's cover is its detail's
  // thumbUrl; page n of a volume is under its detail's mediaBase
  page: (mediaBase, n) => `${mediaBase}/${n}`,
  // tracking, answered after the JetStream ack (edge/server/tracking.go)
  pageView: `${api}/tracking/page-view`,
  trackEvents: `${api}/tracking/events`,
  // accounts (writer/auth/handlers.go), forwarded by the edge
  signup: `${api}/auth/signup`,
  login: `${api}/auth/login`,
  logout: `${api}/auth/logout`,
  me: `${api}/auth/me`,
  // money (writer/money/http.go), forwarded by the edge
  wallet: `${api}/wallet`,
  ledger: `${api}/wallet/ledger`,
  joinBonus: `${api}/wallet/join-bonus`,
  chargeRequest: `${api}/charge/requests`,
  chargeConfirm: `${api}/charge/confirm`,
  purchases: `${api}/purchases`,
  purchaseStatus: (pid) => `${api}/purchases/status?pid=${pid}`,
  downloadAuth: '/protocol/api/v-1/product/download-auth.asp',
  coupons: (pid) => `${api}/coupons?pid=${pid}`,
  couponUse: `${api}/coupons/use`,
  couponEvents: `${api}/coupons/events`,
  couponClaim: (eid) => `${api}/coupons/events/${eid}/claim`,
  gifts: `${api}/coupons/gifts`,
  giftReceive: (id) => `${api}/coupons/gifts/${id}/receive`,
  // admin (writer/admin/admin.go), Bearer ADMIN_TOKEN
  adminWorks: '/admin/api/v1/works',
  adminWork: (pid) => `/admin/api/v1/works/${pid}`,
  adminEvents: '/admin/api/v1/events',
};

export function url(p) {
  return BASE_URL + p;
}
