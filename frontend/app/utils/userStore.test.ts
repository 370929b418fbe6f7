import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deviceInfo } from "./device";
import type { Http } from "./http";
import { STORAGE } from "./user";
import { applyMe, applyWallet, getUserState, loadSideInfo, logout, OfflineError, resetUserStore, setToggle19, sideInfoOf, startup, USER_GET_INFO, userReady, viewOf, type MeAnswer } from "./userStore";

const WEB = deviceInfo("Mozilla/5.0 (Linux; Android 14) Chrome/131.0.0.0 Mobile");
const ANDROID_APP = deviceInfo("Mozilla/5.0 (Linux; Android 14) Chrome/131.0.0.0 Mobile SFApp/AC/1.5.0");
const me = (bid: string, extra: Partial<MeAnswer> = {}): MeAnswer => ({
  header: { code: 200, message: "" },
  authInfo: { uid: "5", bid, email: "r@example.com", loginType: "N", authType: "email", displayName: "r@example.com" },
  adultInfo: { age: 30, authAdult: true, authReal: true, is19Toggle: true, isKorea: false, outLink: false },
  encId: "enc",
  ...extra,
});
const fakeHttp = (answers: Record<string, unknown>) => {
  const calls: string[] = [];
  const http = (async (path: string) => {
    calls.push(path);
    if (path in answers) return answers[path];
    throw new Error("unexpected " + path);
  }) as Http;
  return { http, calls };
};

let replace: ReturnType<typeof vi.fn>;
beforeEach(() => {
  resetUserStore();
  replace = vi.fn();
  vi.spyOn(window, "location", "get").mockReturnValue({ ...window.location, pathname: "/comic", search: "?x=1", hostname: "127.0.0.1", replace } as Location);
});
afterEach(() => vi.restoreAllMocks());

describe("startup", () => {
  it("verifies a logged-in web user with the server and keeps the session", async () => {
    document.cookie = "sf_member=uid=5&loginType=N; path=/";
    document.cookie = "sf_bid=b5; path=/";
    const { http, calls } = fakeHttp({ "/home/api/v1/auth/me": me("b5"), "/home/api/v1/auth/hash": { encryptList: ["b5"] } });
    expect(await startup({ http, device: WEB })).toBe("verify");
    expect(calls.sort()).toEqual(["/home/api/v1/auth/hash", "/home/api/v1/auth/me"]);
    const v = viewOf(getUserState(), WEB);
    expect(v.isLogin).toBe(true);
    expect(v.adultLevel).toBe(2);
    expect(JSON.parse(localStorage.getItem(STORAGE.session)!)).toMatchObject({ uid: "5", bid: "b5", mode: "dev" });
    // Next start: the stored session matches, no server call.
    resetUserStore();
    const again = fakeHttp({});
    expect(await startup({ http: again.http, device: WEB })).toBe("keep");
    expect(again.calls).toEqual([]);
    expect(viewOf(getUserState(), WEB).isLogin).toBe(true);
  });

  it("a server answer with another encrypted id redirects to auto-login with the current path", async () => {
    document.cookie = "sf_member=uid=5&loginType=N; path=/";
    document.cookie = "sf_bid=b5; path=/";
    const { http } = fakeHttp({ "/home/api/v1/auth/me": me("b5"), "/home/api/v1/auth/hash": { encryptList: ["other"] } });
    expect(await startup({ http, device: WEB })).toBe("redirect");
    expect(replace).toHaveBeenCalledWith("/api/v-1/user/login_auto.asp?new_url=%2Fcomic%3Fx%3D1");
  });

  it("the seed's check is the encrypted id: a plain bid that matches does not keep a session the server does not know the member id of", async () => {
    document.cookie = "sf_member=uid=5&loginType=N; path=/";
    document.cookie = "sf_bid=b5; path=/";
    const sent: unknown[] = [];
    const base = fakeHttp({ "/home/api/v1/auth/me": me("b5"), "/home/api/v1/auth/hash": { encryptList: [""] } });
    const http = (async (path: string, o: { form?: unknown }) => {
      if (path.endsWith("/hash")) sent.push(o.form);
      return base.http(path);
    }) as Http;
    expect(await startup({ http, device: WEB })).toBe("redirect");
    expect(sent).toEqual([{ ids: "5" }]);
  });

  it("member id without web id redirects to auto-login, but not twice within the guard window", async () => {
    document.cookie = "sf_member=uid=5&loginType=N; path=/";
    const { http } = fakeHttp({});
    expect(await startup({ http, device: WEB, now: 1_000_000 })).toBe("redirect");
    expect(await startup({ http, device: WEB, now: 1_010_000 })).toBe("none");
    expect(replace).toHaveBeenCalledTimes(1);
    expect(getUserState().loginFlag).toBe(false);
  });

  it("a valid save-login redirects to auto-login outside dev only", async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    document.cookie = `sf_save=id=5&password=1&expiry=${exp}; path=/`;
    expect(await startup({ http: fakeHttp({}).http, device: WEB })).toBe("none");
    localStorage.setItem(STORAGE.env, "live");
    expect(await startup({ http: fakeHttp({}).http, device: WEB })).toBe("redirect");
  });

  it("in the Android app the user comes from cookies and the adult flag query sets the toggle", async () => {
    document.cookie = "sf_member=uid=9&loginType=D; path=/";
    document.cookie = "sf_bid=b9; path=/";
    vi.spyOn(window, "location", "get").mockReturnValue({ ...window.location, pathname: "/", search: "?adultFlag=N", hostname: "127.0.0.1", replace } as Location);
    expect(await startup({ http: fakeHttp({}).http, device: ANDROID_APP })).toBe("app");
    const s = getUserState();
    expect(s.authInfo).toMatchObject({ uid: "9", loginType: "D", bid: "b9" });
    expect(s.adultInfo.is19Toggle).toBe(false);
    expect(viewOf(s, ANDROID_APP).isGuest).toBe(true);
  });

  it("stores the outlink flag: a visitor from an outside link is level 1", async () => {
    vi.spyOn(window, "location", "get").mockReturnValue({ ...window.location, pathname: "/", search: "?outlink=x", hostname: "127.0.0.1", replace } as Location);
    await startup({ http: fakeHttp({}).http, device: WEB });
    expect(getUserState().adultInfo.outLink).toBe(true);
    expect(viewOf(getUserState(), WEB).adultLevel).toBe(1);
  });

  it("offline on the web throws (error page 40)", async () => {
    vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    await expect(startup({ http: fakeHttp({}).http, device: WEB })).rejects.toBeInstanceOf(OfflineError);
  });
});

describe("logout and the 19 toggle", () => {
  it("logout clears the page's session and tells other tabs through the 'logout' key", async () => {
    localStorage.setItem(STORAGE.session, "{}");
    const { http, calls } = fakeHttp({ "/home/api/v1/auth/logout": { header: { code: 200 } } });
    await logout(http);
    expect(calls).toEqual(["/home/api/v1/auth/logout"]);
    expect(localStorage.getItem(STORAGE.session)).toBeNull();
    expect(localStorage.getItem(STORAGE.logout)).toMatch(/^\d+$/);
    expect(getUserState().loginFlag).toBe(false);
  });
  it("the toggle sets the adult-mode cookie for one year", async () => {
    const spy = vi.spyOn(document, "cookie", "set");
    const { http } = fakeHttp({ "/home/api/v1/auth/adult/toggle": me("b5", { adultInfo: { age: 30, authAdult: true, authReal: true, is19Toggle: false, isKorea: false, outLink: false } }) });
    await setToggle19(false, http);
    expect(spy).toHaveBeenCalledWith(expect.stringMatching(/^sf_adult=N; path=\/; max-age=31536000/));
    expect(getUserState().adultInfo.is19Toggle).toBe(false);
  });
});

describe("cookie mode", () => {
  it("a member cookie written for another environment redirects to auto-login", async () => {
    document.cookie = "sf_member=uid=5&loginType=N&mode=live; path=/";
    document.cookie = "sf_bid=b5; path=/";
    const { http, calls } = fakeHttp({ "/home/api/v1/auth/me": me("b5") });
    expect(await startup({ http, device: WEB })).toBe("redirect");
    expect(calls).toEqual([]);
  });
});

describe("side info", () => {
  const answer = (blue: number) => ({
    header: { code: 200, message: "" },
    info: {
      bluemoney: blue, appmoney_a: 2, appmoney_i: 3, blueMileage: 4, flag_ticket_novel: true, flag_ticket_comic: false,
      new_alarm: true, new_gift: false, join_bonus: { valid: true, img_url: "/j.svg" }, firstbill: { valid: false, img_url: "/f.svg" },
      eventBannerInfo: { isEvent: true, retUrl: "/payment/recharge.asp", imgUrl: "/e.svg" }, shownMoney: "android", firstChargeBonusPct: 10,
    },
    auto_payment_info: { is_use: true, type: "bluemoney-auto-payment", money: 10000, trigger_value: 1000 },
  });
  it("reads all twelve fields of the seed's side info, and the writer's shown money", () => {
    expect(sideInfoOf(answer(1))).toEqual({
      blueMoney: 1, androidMoney: 2, iosMoney: 3, blueMileage: 4, newAlarm: true, newGift: false, flagComicTicket: false, flagNovelTicket: true,
      eventBannerInfo: { isEvent: true, retUrl: "/payment/recharge.asp", imgUrl: "/e.svg" },
      joinBonus: { valid: true, imgUrl: "/j.svg" }, firstBill: { valid: false, imgUrl: "/f.svg" },
      autoPayment: { isUse: true, type: "bluemoney-auto-payment", money: 10000, triggerValue: 1000 },
      shownMoney: "android", firstChargeBonusPct: 10,
    });
  });
  it("asks user-get-info with the seed's form (uid, channel, nai), and a read started before a money answer never puts the old balance back", async () => {
    document.cookie = "sf_bid=b5; path=/";
    applyMe(me("b5"));
    const sent: unknown[] = [];
    let answerOld: (v: unknown) => void = () => {};
    const calls: ((v: unknown) => void)[] = [];
    const http = ((path: string, o: { form: unknown }) => {
      sent.push([path, o.form]);
      return new Promise((resolve) => calls.push(resolve));
    }) as unknown as Http;
    const old = loadSideInfo(http, WEB);
    answerOld = calls[0];
    expect(sent[0]).toEqual([USER_GET_INFO, { uid: "5", channel: "AW", nai: 19 }]);
    // The charge answers first: its balance shows at once...
    applyWallet({ bluemoney: 10000, blueMileage: 1000 }, http);
    expect(getUserState().side.blueMoney).toBe(10000);
    // ...and the read started before it, answered now, is dropped.
    answerOld(answer(0));
    await old;
    expect(getUserState().side.blueMoney).toBe(10000);
    // The read applyWallet started afterwards is applied.
    calls[1](answer(10000));
    await new Promise((r) => setTimeout(r, 0));
    expect(getUserState().side).toMatchObject({ blueMoney: 10000, shownMoney: "android", newAlarm: true });
  });
});

describe("userReady", () => {
  // Route loaders run beside the root loader's startup: one that asked the
  // state at once read a logged-in member as a visitor (the recently viewed
  // page said 로그인이 필요한 서비스입니다 to a member who had just signed up).
  it("answers only once startup has decided the user, with that user", async () => {
    resetUserStore();
    let seen: boolean | undefined;
    const p = userReady().then((s) => (seen = s.loginFlag));
    await Promise.resolve();
    expect(seen).toBeUndefined();
    applyMe({ authInfo: { uid: "7", loginType: "N", bid: "b7", email: "", authType: "email" }, adultInfo: getUserState().adultInfo } as MeAnswer);
    await p;
    expect(seen).toBe(true);
    // Once decided, it answers at once.
    expect((await userReady()).loginFlag).toBe(true);
  });
});
