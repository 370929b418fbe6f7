// User states (seed §3, §4, §6): auth info, adult info, adult level, teen
// version, the login state rule and the startup user resolution. Pure
// functions; userStore.ts wires them to cookies, storage and the writer.

/** Cookie and storage names (the writer sets the cookies; see writer/auth). */
export const COOKIE = {
  webId: "sf_bid",
  member: "sf_member",
  adultMode: "sf_adult",
  saveLogin: "sf_save",
  cookieMode: "sf_cmode",
  topBanner: "sf_topbanner_hide",
} as const;
export const STORAGE = {
  session: "sf_user",
  logout: "logout",
  quickView: "quickView",
  autoLoginStamp: "sf_autologin_at",
  env: "sf_env",
} as const;

export const ADULT_AGE = 19;
export const ADULT_MODE_MAX_AGE = 31_536_000; // one year
export const AUTO_LOGIN_PATH = "/api/v-1/user/login_auto.asp";
/** A second auto-login redirect within this window means it did not help: stop looping. */
export const AUTO_LOGIN_GUARD_MS = 30_000;

export type LoginType = "N" | "F" | "M" | "S" | "D" | string;

export type AuthInfo = {
  email: string;
  loginType: LoginType;
  uid: string;
  id?: string;
  bid: string;
  authType: string;
  displayName?: string;
  loginPrefix?: string;
};

export type AdultInfo = {
  age: number;
  authAdult: boolean;
  authReal: boolean;
  is19Toggle: boolean;
  isKorea: boolean;
  outLink: boolean;
};

export const VISITOR_ADULT: AdultInfo = {
  age: 0,
  authAdult: false,
  authReal: false,
  is19Toggle: true,
  isKorea: false,
  outLink: false,
};

/** Display name: the email for types N, F, M, otherwise the uid. */
export function displayName(a: Pick<AuthInfo, "loginType" | "email" | "uid">): string {
  return a.loginType === "N" || a.loginType === "F" || a.loginType === "M" ? a.email : a.uid;
}

/** Login prefix: social (S) the first letter of the id upper-cased, guest D. */
export function loginPrefix(a: Pick<AuthInfo, "loginType"> & { id?: string }): string {
  if (a.loginType === "S") return (a.id ?? "").slice(0, 1).toUpperCase();
  if (a.loginType === "D") return "D";
  return "";
}

/** age: 0 when not numeric. */
export function parseAge(v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
}

/** The member cookie: pairs joined by &; key 19Toggle absent or empty = adult mode on, OFF = off. */
export type MemberCookie = { uid: string; loginType: string; toggle19On: boolean; mode: string };
export function parseMemberCookie(raw: string | undefined): MemberCookie | null {
  if (!raw) return null;
  const q = new URLSearchParams(raw.replace(/^"|"$/g, ""));
  const uid = q.get("uid") ?? "";
  if (!uid) return null;
  return { uid, loginType: q.get("loginType") ?? "", toggle19On: toggle19On(q.get("19Toggle")), mode: q.get("mode") ?? "" };
}
export const toggle19On = (v: string | null | undefined) => v !== "OFF";

/** The save-login record: id, password, expiry (unix seconds). */
export type SaveLogin = { id: string; password: string; expiry: number };
export function parseSaveLogin(raw: string | undefined): SaveLogin | null {
  if (!raw) return null;
  const q = new URLSearchParams(raw.replace(/^"|"$/g, ""));
  return { id: q.get("id") ?? "", password: q.get("password") ?? "", expiry: Number(q.get("expiry") ?? 0) || 0 };
}
/** Valid: not expired, id and password present. */
export function saveLoginValid(s: SaveLogin | null, nowSec: number): boolean {
  return !!s && s.id !== "" && s.password !== "" && s.expiry > nowSec;
}

/**
 * Adult level: 0 unverified; 1 teen, or outside-link visitor not logged in;
 * 2 adult with the 19 toggle on; 3 adult with it off. Adult = age 19+ with
 * real-name authentication.
 */
export function adultLevel(isLogin: boolean, a: AdultInfo): 0 | 1 | 2 | 3 {
  if (!isLogin) return a.outLink ? 1 : 0;
  if (!a.authReal) return 0;
  if (a.age < ADULT_AGE) return 1;
  return a.is19Toggle ? 2 : 3;
}
export const isAdultLevel = (level: number) => level === 2 || level === 3;

/** The teen version applies if the channel is not an adult channel or the level is 1 or 3. */
export function isTeenVersion(adultChannel: boolean, level: number): boolean {
  return !adultChannel || level === 1 || level === 3;
}

/**
 * Adult content (an adult work's page, cover, summary) is displayed only at
 * level 2 (adult with the toggle on), on an adult channel: contract.AdultContent,
 * the rule the edge renders by. Level 0 on an adult channel is not the teen
 * version, yet shows no adult work (docs/decisions/teen-version-level-0.md).
 */
export const showsAdultContent = (level: number, adultChannel = true) => adultChannel && level === 2;

/** Adult verification is needed when the rating is 19+ and the user is not adult. */
export function needsAdultVerification(ageRating: number, level: number): boolean {
  return ageRating >= ADULT_AGE && !isAdultLevel(level);
}

/**
 * What the adult gate of a 19 work offers (seed §5: verification is asked only
 * of readers who are not adult): none (shown), login (a visitor), verify (never
 * verified), teen (a verified minor), toggle (an adult with the 19 toggle off)
 * or notInApp (the store apps AA and IA). contract.AdultGate; both run against
 * contract/cases/audience.json.
 */
export type AdultGate = "none" | "login" | "verify" | "teen" | "toggle" | "notInApp";
export function adultGate(adultChannel: boolean, isLogin: boolean, level: number, ageRating = ADULT_AGE): AdultGate {
  if (ageRating < ADULT_AGE) return "none";
  if (!adultChannel) return "notInApp";
  if (showsAdultContent(level, adultChannel)) return "none";
  if (!isLogin) return "login";
  if (!needsAdultVerification(ageRating, level)) return "toggle"; // an adult (level 3): offer the toggle, never verification
  return level === 1 ? "teen" : "verify";
}

/** Login state: true only when the flag and the web-id cookie exist and the cookie equals the stored bid. */
export function loginState(loginFlag: boolean, webIdCookie: string | undefined, storedBid: string | undefined): boolean {
  return loginFlag && !!webIdCookie && !!storedBid && webIdCookie === storedBid;
}

/**
 * memberCheck: who may start a member-only action (zzim, alarm, buy, rent,
 * unlock, reviews, votes...). Seed §4, §6: only logged-in members act; a guest
 * (loginType D, in the app) is sent straight to the app's native login (on
 * the web, where a guest cannot be, to /nuxgin with the return url); a visitor
 * is asked first (the login-required modal, whose login does the same).
 */
export type MemberCheck = "member" | "nativeLogin" | "webLogin" | "askLogin";
export function memberCheck(u: { isLogin: boolean; isGuest: boolean }, isApp: boolean): MemberCheck {
  if (!u.isLogin) return "askLogin";
  if (!u.isGuest) return "member";
  return isApp ? "nativeLogin" : "webLogin";
}

export type Env = "live" | "stage" | "dev";
/** Cookie mode per environment, from the host (an explicit override wins, for QA). */
export function envOf(hostname: string, override?: string | null): Env {
  if (override === "live" || override === "stage" || override === "dev") return override;
  if (hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]" || hostname.endsWith(".local") || hostname.startsWith("dev.")) return "dev";
  if (hostname.startsWith("stage.") || hostname.startsWith("stg.")) return "stage";
  return "live";
}

export function autoLoginUrl(returnPath: string): string {
  return `${AUTO_LOGIN_PATH}?new_url=${encodeURIComponent(returnPath)}`;
}

export function loginUrl(returnPath: string, fromAdult = false): string {
  return `/nuxgin?url=${encodeURIComponent(returnPath)}${fromAdult ? "&from=adult" : ""}`;
}

/** The page's record of a verified session. */
export type StoredSession = { uid: string; bid: string; encId: string; mode: Env; authInfo: AuthInfo; adultInfo: AdultInfo };

export type StartupInput = {
  isApp: boolean;
  online: boolean;
  /**
   * The page came from the service worker's cache (a worker controls it):
   * offline, the store still opens and each screen shows what is cached.
   */
  shellCached?: boolean;
  env: Env;
  member: MemberCookie | null;
  webId: string | undefined;
  cookieMode: string | undefined;
  stored: StoredSession | null;
  saveLogin: SaveLogin | null;
  nowSec: number;
};

export type StartupDecision =
  | { kind: "offline" } // web only: error page 40
  | { kind: "keep" } // the stored session matches the cookies
  | { kind: "autoLogin"; reason: string }
  | { kind: "verify" } // ask the server, compare the web id
  | { kind: "app" } // the app: user straight from cookies
  | { kind: "none" };

/** storedMatches: the page's stored session is the one the cookies name, in this environment. */
const storedMatches = (i: StartupInput) =>
  !!i.member && !!i.stored && i.stored.uid === i.member.uid && i.stored.bid === i.webId && i.stored.mode === i.env;

/** The startup user resolution (seed §4), before any server call. */
export function decideStartup(i: StartupInput): StartupDecision {
  if (!i.isApp && !i.online) {
    if (!i.shellCached) return { kind: "offline" };
    // Nothing can be asked of the server: the stored session when the
    // cookies still name it (a member reads saved volumes), else a visitor.
    return storedMatches(i) ? { kind: "keep" } : { kind: "none" };
  }
  if (i.isApp) return i.member ? { kind: "app" } : { kind: "none" };
  if (i.member) {
    if (!i.webId) return { kind: "autoLogin", reason: "member id without web id" };
    if (i.cookieMode && i.cookieMode !== i.env) return { kind: "autoLogin", reason: "cookie mode " + i.cookieMode + " in " + i.env };
    if (storedMatches(i)) return { kind: "keep" };
    return { kind: "verify" };
  }
  if (i.env !== "dev" && saveLoginValid(i.saveLogin, i.nowSec)) return { kind: "autoLogin", reason: "save-login" };
  return { kind: "none" };
}

/**
 * After "verify" (seed §4): the web id is compared with the encrypted id the
 * server returns for the member id (the {hash} call's first encryptList
 * entry, "" when the server does not know the id in this session or the call
 * failed). The plain bid of another answer is not the check: a cookie copied
 * from another member still names a bid.
 */
export function verifyMatches(webId: string, encrypted: string | null | undefined): boolean {
  return !!webId && !!encrypted && encrypted === webId;
}

/** The seed's {hash} call: a param list holding the id; the answer's encryptList, first entry read. */
export const HASH_API = "/home/api/v1/auth/hash";
export const firstEncrypted = (a: { encryptList?: unknown } | null | undefined): string => {
  const first = Array.isArray(a?.encryptList) ? a.encryptList[0] : undefined;
  return typeof first === "string" ? first : "";
};

/** Android app: the adult-flag query value Y turns the 19 toggle on, anything else off. */
export const ADULT_FLAG_QUERY = "adultFlag";
export function androidAdultFlag(search: string): boolean {
  return new URLSearchParams(search).get(ADULT_FLAG_QUERY) === "Y";
}

/** outLink: the query has outlink. */
export const hasOutLink = (search: string) => new URLSearchParams(search).has("outlink");

/** Email rule (seed §5): word, dash and dot characters, @, domain labels, final label of 2 to 4 characters. */
export const EMAIL_RE = /^[\w.-]+@([\w-]+\.)+[\w-]{2,4}$/;
export const validEmail = (s: string) => EMAIL_RE.test(s);

/**
 * isSafeReturn: a return target stays on this site. The same rule as the
 * writer's (writer/auth safeReturn): a path, no "//" start, no backslash
 * (browsers read it as a slash), no control character (they are stripped, so
 * "/\t/host" is "//host"), and it must still resolve to this origin.
 */
export function isSafeReturn(u: string | null | undefined): u is string {
  if (!u || u[0] !== "/" || u.startsWith("//") || u.includes("\\") || /[\u0000-\u001f\u007f]/.test(u)) return false;
  try {
    const base = "http://store.invalid";
    const r = new URL(u, base);
    return r.origin === base && !r.pathname.startsWith("//");
  } catch {
    return false;
  }
}

/** safeReturn keeps return targets on this site ("/" otherwise). */
export function safeReturn(u: string | null | undefined): string {
  return isSafeReturn(u) ? u : "/";
}

/**
 * The store's own hosts, where a return target may lead with a full page
 * replace (seed §8: a redirect to a non-local target does a full replace):
 * this page's host, plus the hosts a deployment names at build time
 * (VITE_STORE_HOSTS, comma-separated, e.g. "m.store.example,store.example")
 * or the hosting page sets (window.SF_STORE_HOSTS) before the app starts.
 */
export function storeHosts(): string[] {
  const configured = (globalThis as { SF_STORE_HOSTS?: string }).SF_STORE_HOSTS ?? import.meta.env.VITE_STORE_HOSTS ?? "";
  const own = typeof location === "undefined" ? [] : [location.host];
  return [...own, ...String(configured).split(",")].map((h) => h.trim().toLowerCase()).filter(Boolean);
}

/** Where a return target leads: a path of this app, a full replace to the store's own host, or nowhere. */
export type ReturnTarget = { kind: "local"; path: string } | { kind: "replace"; href: string };

/**
 * returnTarget keeps the open-redirect protection of isSafeReturn for paths and
 * lets an absolute http(s) URL through only to one of hosts (compared on the
 * parsed host, so "store.example@evil.example" or "store.example.evil.example"
 * are other hosts); everything else is "/".
 */
export function returnTarget(u: string | null | undefined, hosts: readonly string[] = storeHosts()): ReturnTarget {
  if (isSafeReturn(u)) return { kind: "local", path: u };
  if (u && /^https?:\/\//i.test(u) && !/[\u0000-\u001f\u007f\\\s]/.test(u)) {
    try {
      const r = new URL(u);
      if (!r.username && !r.password && hosts.includes(r.host.toLowerCase())) return { kind: "replace", href: r.href };
    } catch {
      /* not a URL: "/" */
    }
  }
  return { kind: "local", path: "/" };
}

/** goReturn follows a return target: the router for a path, a full replace for the store's other addresses. */
export function goReturn(t: ReturnTarget, navigate: (to: string, o: { replace: boolean }) => void, replace: (href: string) => void = (h) => window.location.replace(h)) {
  if (t.kind === "replace") replace(t.href);
  else navigate(t.path, { replace: true });
}
