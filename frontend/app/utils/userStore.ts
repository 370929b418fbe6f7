// The user's state in the page: resolved once at startup (root clientLoader),
// changed by login, logout, the 19 toggle and adult verification. A small
// external store so the shell and screens read it with useUser().
import { useSyncExternalStore } from "react";
import { http as defaultHttp } from "./api";
import { deleteCookie, getCookie, setCookie } from "./cookies";
import { currentDevice, type DeviceInfo } from "./device";
import type { Http } from "./http";
import {
  ADULT_MODE_MAX_AGE,
  adultLevel,
  androidAdultFlag,
  AUTO_LOGIN_GUARD_MS,
  autoLoginUrl,
  COOKIE,
  decideStartup,
  envOf,
  hasOutLink,
  isTeenVersion,
  loginState,
  parseMemberCookie,
  parseSaveLogin,
  STORAGE,
  VISITOR_ADULT,
  verifyMatches,
  type AdultInfo,
  type AuthInfo,
  type Env,
  type StartupDecision,
  type StoredSession,
} from "./user";

export const AUTH_API = "/home/api/v1/auth";

export type MeAnswer = {
  header: { code: number; message: string };
  authInfo: AuthInfo | null;
  adultInfo: AdultInfo & { adultLevel?: number };
  encId?: string;
};

export type SideInfo = {
  blueMoney: number;
  androidMoney: number;
  iosMoney: number;
  blueMileage: number;
  newAlarm: boolean;
  newGift: boolean;
};
/** Guest defaults: numbers 0, newGift true (seed §3). */
export const GUEST_SIDE_INFO: SideInfo = { blueMoney: 0, androidMoney: 0, iosMoney: 0, blueMileage: 0, newAlarm: false, newGift: true };

export type UserState = {
  ready: boolean;
  loginFlag: boolean;
  authInfo: AuthInfo | null;
  adultInfo: AdultInfo;
  side: SideInfo;
};

const initial: UserState = { ready: false, loginFlag: false, authInfo: null, adultInfo: VISITOR_ADULT, side: GUEST_SIDE_INFO };
let state: UserState = initial;
const listeners = new Set<() => void>();

function set(next: Partial<UserState>) {
  state = { ...state, ...next };
  listeners.forEach((l) => l());
}
export const getUserState = () => state;
export function subscribeUser(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}
/** For tests. */
export function resetUserStore() {
  state = initial;
  listeners.forEach((l) => l());
}

export type UserView = UserState & {
  isLogin: boolean;
  isGuest: boolean;
  adultLevel: 0 | 1 | 2 | 3;
  teen: boolean;
};

export function viewOf(s: UserState, device: Pick<DeviceInfo, "isAdultChannel">, doc: Document = document): UserView {
  const isLogin = loginState(s.loginFlag, getCookie(COOKIE.webId, doc), s.authInfo?.bid);
  const level = adultLevel(isLogin, s.adultInfo);
  return {
    ...s,
    isLogin,
    isGuest: isLogin && s.authInfo?.loginType === "D",
    adultLevel: level,
    teen: isTeenVersion(device.isAdultChannel, level),
  };
}

export function useUser(): UserView {
  const s = useSyncExternalStore(subscribeUser, getUserState, getUserState);
  return viewOf(s, currentDevice());
}

export function currentEnv(): Env {
  let override: string | null = null;
  try {
    override = localStorage.getItem(STORAGE.env);
  } catch {
    /* storage blocked */
  }
  return envOf(location.hostname, override);
}

function readStored(): StoredSession | null {
  try {
    const raw = localStorage.getItem(STORAGE.session);
    return raw ? (JSON.parse(raw) as StoredSession) : null;
  } catch {
    return null;
  }
}
function writeStored(s: StoredSession | null) {
  try {
    if (s) localStorage.setItem(STORAGE.session, JSON.stringify(s));
    else localStorage.removeItem(STORAGE.session);
  } catch {
    /* storage blocked */
  }
}

export class OfflineError extends Error {
  constructor() {
    super("network connection broken");
    this.name = "OfflineError";
  }
}

/** redirectToAutoLogin leaves the SPA for the writer's auto-login page, at most once per guard window. */
export function redirectToAutoLogin(path: string, now = Date.now()): boolean {
  const last = Number(sessionStorage.getItem(STORAGE.autoLoginStamp) ?? 0);
  if (last && now - last < AUTO_LOGIN_GUARD_MS) return false;
  sessionStorage.setItem(STORAGE.autoLoginStamp, String(now));
  window.location.replace(autoLoginUrl(path));
  return true;
}

function cookieAdult(member: ReturnType<typeof parseMemberCookie>, base: AdultInfo): AdultInfo {
  return member ? { ...base, is19Toggle: member.toggle19On } : base;
}

/**
 * startup runs the seed's startup user resolution. It returns the decision it
 * acted on; "redirect" means the page is leaving for the auto-login page.
 * Offline on the web throws OfflineError (error page 40).
 */
export async function startup(opts: { http?: Http; device?: DeviceInfo; now?: number } = {}): Promise<StartupDecision["kind"] | "redirect"> {
  const http = opts.http ?? defaultHttp;
  const device = opts.device ?? currentDevice();
  const nowMs = opts.now ?? Date.now();
  const env = currentEnv();
  const member = parseMemberCookie(getCookie(COOKIE.member));
  const webId = getCookie(COOKIE.webId);
  const stored = readStored();
  const path = location.pathname + location.search;
  const decision = decideStartup({
    isApp: device.isApp,
    online: navigator.onLine !== false,
    env,
    member,
    webId,
    // The writer writes its environment into the member cookie (mode=live|stage|dev).
    cookieMode: member?.mode || getCookie(COOKIE.cookieMode),
    stored,
    saveLogin: parseSaveLogin(getCookie(COOKIE.saveLogin)),
    nowSec: Math.floor(nowMs / 1000),
  });

  const outLink = hasOutLink(location.search);
  const finish = (s: Partial<UserState>) => {
    let adult = { ...(s.adultInfo ?? state.adultInfo), outLink };
    if (device.isAndroidApp) adult = { ...adult, is19Toggle: androidAdultFlag(location.search) };
    set({ ...s, adultInfo: adult, ready: true });
  };

  const autoLogin = () => redirectToAutoLogin(path, nowMs);

  switch (decision.kind) {
    case "offline":
      throw new OfflineError();
    case "keep":
      finish({ loginFlag: true, authInfo: stored!.authInfo, adultInfo: cookieAdult(member, stored!.adultInfo) });
      break;
    case "autoLogin":
      if (autoLogin()) return "redirect";
      writeStored(null);
      finish({ loginFlag: false, authInfo: null, adultInfo: VISITOR_ADULT });
      return "none";
    case "verify": {
      let me: MeAnswer | null = null;
      try {
        me = await http<MeAnswer>(`${AUTH_API}/me`, { query: outLink ? { outlink: "1" } : undefined });
      } catch {
        me = null;
      }
      if (!me || !verifyMatches(webId!, me)) {
        if (autoLogin()) return "redirect";
        writeStored(null);
        finish({ loginFlag: false, authInfo: null, adultInfo: VISITOR_ADULT });
        return "none";
      }
      remember(me, env);
      finish({ loginFlag: true, authInfo: me.authInfo, adultInfo: me.adultInfo });
      break;
    }
    case "app": {
      // In the app the user comes straight from the cookies the app set.
      const authInfo: AuthInfo = { uid: member!.uid, loginType: member!.loginType, bid: webId ?? "", email: "", authType: "" };
      finish({ loginFlag: !!webId, authInfo, adultInfo: cookieAdult(member, VISITOR_ADULT) });
      break;
    }
    case "none":
      writeStored(null);
      finish({ loginFlag: false, authInfo: null, adultInfo: VISITOR_ADULT });
      break;
  }
  return decision.kind;
}

function remember(me: MeAnswer, env: Env) {
  if (!me.authInfo) return;
  writeStored({ uid: me.authInfo.uid, bid: me.authInfo.bid, encId: me.encId ?? "", mode: env, authInfo: me.authInfo, adultInfo: me.adultInfo });
  setCookie(COOKIE.cookieMode, env, { maxAge: 14 * 24 * 3600 });
}

/** applyMe takes a writer answer that carries the user (login, /me, verify, toggle). */
export function applyMe(me: MeAnswer) {
  if (!me.authInfo) {
    writeStored(null);
    set({ loginFlag: false, authInfo: null, adultInfo: { ...VISITOR_ADULT, outLink: state.adultInfo.outLink }, ready: true });
    return;
  }
  remember(me, currentEnv());
  set({ loginFlag: true, authInfo: me.authInfo, adultInfo: { ...me.adultInfo, outLink: state.adultInfo.outLink }, ready: true });
}

export async function login(email: string, password: string, saveLogin: boolean, http: Http = defaultHttp) {
  const me = await http<MeAnswer>(`${AUTH_API}/login`, { method: "POST", json: { email, password, saveLogin } });
  applyMe(me);
  sessionStorage.removeItem(STORAGE.autoLoginStamp);
  return me;
}

/** clearLocal forgets the user in this tab (after a logout here or in another tab). */
export function clearLocal() {
  writeStored(null);
  deleteCookie(COOKIE.cookieMode);
  set({ loginFlag: false, authInfo: null, adultInfo: { ...VISITOR_ADULT, outLink: state.adultInfo.outLink }, side: GUEST_SIDE_INFO });
}

/** logout ends the session on the writer and tells the other tabs (storage key 'logout'). */
export async function logout(http: Http = defaultHttp) {
  try {
    await http(`${AUTH_API}/logout`, { method: "POST" });
  } finally {
    clearLocal();
    try {
      localStorage.setItem(STORAGE.logout, String(Date.now()));
    } catch {
      /* storage blocked */
    }
  }
}

/** The 19 toggle: on shows adult content; the adult-mode cookie (Y/N) lasts one year. */
export async function setToggle19(on: boolean, http: Http = defaultHttp) {
  const me = await http<MeAnswer>(`${AUTH_API}/adult/toggle`, { method: "PUT", json: { on } });
  applyMe(me);
  setCookie(COOKIE.adultMode, on ? "Y" : "N", { maxAge: ADULT_MODE_MAX_AGE });
  return me;
}

export type VerifyRequest = { name: string; birthDate: string; gender: "M" | "F" | "" };
export async function verifyAdult(v: VerifyRequest, korea: boolean, http: Http = defaultHttp) {
  const me = await http<MeAnswer>(`${AUTH_API}/adult/verify`, { method: "POST", json: v, query: korea ? { korea: "ok" } : undefined });
  applyMe(me);
  return me;
}

type WalletAnswer = { bluemoney?: number; appmoney_a?: number; appmoney_i?: number; blueMileage?: number; new_alarm?: boolean; new_gift?: boolean };
/** loadSideInfo fills the member summary; failures keep the guest defaults. */
export async function loadSideInfo(http: Http = defaultHttp) {
  try {
    const w = await http<WalletAnswer>("/home/api/v1/wallet");
    set({
      side: {
        blueMoney: w.bluemoney ?? 0,
        androidMoney: w.appmoney_a ?? 0,
        iosMoney: w.appmoney_i ?? 0,
        blueMileage: w.blueMileage ?? 0,
        newAlarm: !!w.new_alarm,
        newGift: w.new_gift ?? false,
      },
    });
  } catch {
    /* the sidebar shows guest defaults */
  }
}
