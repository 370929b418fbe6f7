// The user's state in the page: resolved once at startup (root clientLoader),
// changed by login, logout, the 19 toggle and adult verification. A small
// external store so the shell and screens read it with useUser().
import { useSyncExternalStore } from "react";
import { clearSaved } from "~/offline/savedIndex";
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
  firstEncrypted,
  HASH_API,
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

/** The money a channel shows and spends, as the writer names it (contract.MoneyFor). */
export type MoneyName = "blue" | "android" | "ios";
export type Banner = { valid: boolean; imgUrl: string };
export type AutoPaymentInfo = { isUse: boolean; type: string; money: number; triggerValue: number };

/** Side info (seed §3): the member summary, all twelve fields, from user-get-info. */
export type SideInfo = {
  blueMoney: number;
  androidMoney: number;
  iosMoney: number;
  blueMileage: number;
  newAlarm: boolean;
  newGift: boolean;
  flagComicTicket: boolean;
  flagNovelTicket: boolean;
  eventBannerInfo: { isEvent: boolean; retUrl: string; imgUrl: string };
  joinBonus: Banner;
  firstBill: Banner;
  autoPayment: AutoPaymentInfo;
  /** The money the writer shows and spends on this channel (null until it answered). */
  shownMoney: MoneyName | null;
  /** The first-charge bonus the writer grants, in percent (0 until it answered). */
  firstChargeBonusPct: number;
};
const NO_BANNER: Banner = { valid: false, imgUrl: "" };
/** Guest defaults: numbers 0, newGift true (seed §3). */
export const GUEST_SIDE_INFO: SideInfo = {
  blueMoney: 0,
  androidMoney: 0,
  iosMoney: 0,
  blueMileage: 0,
  newAlarm: false,
  newGift: true,
  flagComicTicket: false,
  flagNovelTicket: false,
  eventBannerInfo: { isEvent: false, retUrl: "", imgUrl: "" },
  joinBonus: NO_BANNER,
  firstBill: NO_BANNER,
  autoPayment: { isUse: false, type: "", money: 0, triggerValue: 0 },
  shownMoney: null,
  firstChargeBonusPct: 0,
};

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
/**
 * The user once the root loader's startup has resolved it. Route loaders run
 * beside the root loader, so one that reads the user (logged in or not) waits
 * for this instead of reading the state before startup has decided it.
 */
export function userReady(): Promise<UserState> {
  const now = getUserState();
  if (now.ready) return Promise.resolve(now);
  return new Promise((resolve) => {
    const off = subscribeUser(() => {
      const s = getUserState();
      if (s.ready) {
        off();
        resolve(s);
      }
    });
  });
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
    shellCached: !!navigator.serviceWorker?.controller,
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
      // The seed's check: the web id against the encrypted id the server
      // returns for the member id ({hash}); /me gives the user to show.
      const [encrypted, me] = await Promise.all([
        http<{ encryptList?: unknown }>(HASH_API, { method: "POST", form: { ids: member!.uid } }).then(firstEncrypted, () => ""),
        http<MeAnswer>(`${AUTH_API}/me`, { query: outLink ? { outlink: "1" } : undefined }).catch(() => null),
      ]);
      if (!me?.authInfo || !verifyMatches(webId!, encrypted)) {
        if (autoLogin()) return "redirect";
        writeStored(null);
        finish({ loginFlag: false, authInfo: null, adultInfo: VISITOR_ADULT });
        return "none";
      }
      remember({ ...me, encId: encrypted }, env);
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
  // Saved volumes are the member's: none stays after a logout, here or in another tab.
  void clearSaved().catch(() => {});
  // Reading places queued offline (viewer/place.ts) are this member's too: sent
  // after a logout they would land in the next member's session.
  try {
    localStorage.removeItem("sf_place_queue_v1");
  } catch {
    /* storage blocked */
  }
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

/** An identity verification the writer issued to this member (adult/start). */
export type AdultStart = {
  identityVerificationId: string;
  storeId: string;
  channelKey: string;
  /** The identity sandbox's certification page (development only); the page appends redirectUrl. */
  pageUrl?: string;
};
export async function startAdultVerification(http: Http = defaultHttp) {
  return http<AdultStart>(`${AUTH_API}/adult/start`, { method: "POST" });
}

/** Finishes a verification: the writer reads the provider's answer; the body names nobody. */
export async function verifyAdult(identityVerificationId: string, korea: boolean, http: Http = defaultHttp) {
  const me = await http<MeAnswer>(`${AUTH_API}/adult/verify`, {
    method: "POST",
    json: { identityVerificationId },
    query: korea ? { korea: "ok" } : undefined,
  });
  applyMe(me);
  return me;
}

/** The writer's user-get-info answer (seed §7), plus shownMoney and firstChargeBonusPct. */
export type UserGetInfoAnswer = {
  info: {
    bluemoney?: number;
    appmoney_a?: number;
    appmoney_i?: number;
    blueMileage?: number;
    flag_ticket_novel?: boolean;
    flag_ticket_comic?: boolean;
    new_alarm?: boolean;
    new_gift?: boolean;
    join_bonus?: { valid?: boolean; img_url?: string };
    firstbill?: { valid?: boolean; img_url?: string };
    eventBannerInfo?: { isEvent?: boolean; retUrl?: string; imgUrl?: string };
    shownMoney?: string;
    firstChargeBonusPct?: number;
  };
  auto_payment_info?: { is_use?: boolean; type?: string; money?: number; trigger_value?: number };
};
export const USER_GET_INFO = "/protocol/appapi/mb/user/info/user-get-info";

const banner = (b: { valid?: boolean; img_url?: string } | undefined): Banner => ({ valid: !!b?.valid, imgUrl: b?.img_url ?? "" });
const moneyName = (v: string | undefined): MoneyName | null => (v === "blue" || v === "android" || v === "ios" ? v : null);

/** sideInfoOf reads the writer's answer into the page's side info. */
export function sideInfoOf(a: UserGetInfoAnswer): SideInfo {
  const i = a.info ?? {};
  const ap = a.auto_payment_info ?? {};
  return {
    blueMoney: i.bluemoney ?? 0,
    androidMoney: i.appmoney_a ?? 0,
    iosMoney: i.appmoney_i ?? 0,
    blueMileage: i.blueMileage ?? 0,
    newAlarm: !!i.new_alarm,
    newGift: i.new_gift ?? false,
    flagComicTicket: !!i.flag_ticket_comic,
    flagNovelTicket: !!i.flag_ticket_novel,
    eventBannerInfo: { isEvent: !!i.eventBannerInfo?.isEvent, retUrl: i.eventBannerInfo?.retUrl ?? "", imgUrl: i.eventBannerInfo?.imgUrl ?? "" },
    joinBonus: banner(i.join_bonus),
    firstBill: banner(i.firstbill),
    autoPayment: { isUse: !!ap.is_use, type: ap.type ?? "", money: ap.money ?? 0, triggerValue: ap.trigger_value ?? 0 },
    shownMoney: moneyName(i.shownMoney),
    firstChargeBonusPct: i.firstChargeBonusPct ?? 0,
  };
}

// Every read of the side info takes a number; an answer is applied only when
// no newer read or money answer came after the read started. Without it a
// read started before a charge and answered after it put the old balance
// back ("보유 블루머니 0원" right after "10,000원 충전 완료").
let sideEpoch = 0;

/**
 * loadSideInfo fills the member summary from the writer's user-get-info (the
 * seed's call: uid, channel, nai); failures keep what is shown.
 */
export async function loadSideInfo(http: Http = defaultHttp, device: Pick<DeviceInfo, "channel" | "isAdultChannel"> = currentDevice()) {
  const mine = ++sideEpoch;
  const v = viewOf(state, device);
  if (!v.isLogin || !v.authInfo) return;
  try {
    const a = await http<UserGetInfoAnswer>(USER_GET_INFO, {
      method: "POST",
      form: { uid: v.authInfo.uid, channel: device.channel, nai: v.adultLevel === 2 ? 19 : 0 },
    });
    if (mine !== sideEpoch) return;
    set({ side: sideInfoOf(a) });
  } catch {
    /* the sidebar keeps what it shows */
  }
}

/** The balances a money call answers with (charge confirm, purchase, join bonus, jumping pass). */
export type WalletBalances = { bluemoney?: number; appmoney_a?: number; appmoney_i?: number; blueMileage?: number };

/**
 * applyWallet shows the balances a money call just answered, everywhere at
 * once (charge page, sidebar, unlock sheet), and reads the side info again for
 * what the call changed besides (the first-charge banner, tickets).
 */
export function applyWallet(w: WalletBalances | null | undefined, http: Http = defaultHttp) {
  if (!w) return;
  sideEpoch++;
  const s = state.side;
  set({
    side: {
      ...s,
      blueMoney: w.bluemoney ?? s.blueMoney,
      androidMoney: w.appmoney_a ?? s.androidMoney,
      iosMoney: w.appmoney_i ?? s.iosMoney,
      blueMileage: w.blueMileage ?? s.blueMileage,
    },
  });
  void loadSideInfo(http);
}
