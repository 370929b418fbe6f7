import { describe, expect, it } from "vitest";
import {
  adultLevel,
  androidAdultFlag,
  autoLoginUrl,
  decideStartup,
  displayName,
  envOf,
  hasOutLink,
  isTeenVersion,
  loginPrefix,
  loginState,
  loginUrl,
  memberCheck,
  needsAdultVerification,
  parseAge,
  parseMemberCookie,
  parseSaveLogin,
  safeReturn,
  saveLoginValid,
  showsAdultContent,
  adultGate,
  goReturn,
  returnTarget,
  validEmail,
  verifyMatches,
  firstEncrypted,
  VISITOR_ADULT,
  type StartupInput,
} from "./user";
import { contractCases, type AudienceCases } from "~/test/cases";
import { isAdultChannel, type Channel } from "./device";

describe("auth info", () => {
  it("display name is the email for N, F, M, otherwise the uid", () => {
    for (const t of ["N", "F", "M"]) expect(displayName({ loginType: t, email: "a@b.co", uid: "7" })).toBe("a@b.co");
    for (const t of ["S", "D"]) expect(displayName({ loginType: t, email: "a@b.co", uid: "7" })).toBe("7");
  });
  it("login prefix: social first letter upper-cased, guest D", () => {
    expect(loginPrefix({ loginType: "S", id: "kakao_1" })).toBe("K");
    expect(loginPrefix({ loginType: "D", id: "x" })).toBe("D");
    expect(loginPrefix({ loginType: "N", id: "x" })).toBe("");
  });
  it("age is 0 when not numeric", () => {
    expect(parseAge("23")).toBe(23);
    expect(parseAge(31)).toBe(31);
    expect(parseAge("abc")).toBe(0);
    expect(parseAge("")).toBe(0);
    expect(parseAge(undefined)).toBe(0);
  });
});

describe("cookies", () => {
  it("member cookie: 19Toggle absent or empty means on, OFF means off", () => {
    expect(parseMemberCookie("uid=5&loginType=N")).toEqual({ uid: "5", loginType: "N", toggle19On: true, mode: "" });
    expect(parseMemberCookie("19Toggle=&loginType=N&mode=live&uid=5")?.mode).toBe("live");
    expect(parseMemberCookie("19Toggle=&loginType=N&uid=5")?.toggle19On).toBe(true);
    expect(parseMemberCookie("19Toggle=OFF&loginType=N&uid=5")?.toggle19On).toBe(false);
    expect(parseMemberCookie("loginType=N")).toBeNull();
    expect(parseMemberCookie(undefined)).toBeNull();
  });
  it("save-login is valid when not expired with id and password", () => {
    const now = 1_000_000;
    expect(saveLoginValid(parseSaveLogin(`id=5&password=1&expiry=${now + 1}`), now)).toBe(true);
    expect(saveLoginValid(parseSaveLogin(`id=5&password=1&expiry=${now}`), now)).toBe(false);
    expect(saveLoginValid(parseSaveLogin(`id=&password=1&expiry=${now + 9}`), now)).toBe(false);
    expect(saveLoginValid(parseSaveLogin(`id=5&expiry=${now + 9}`), now)).toBe(false);
    expect(saveLoginValid(null, now)).toBe(false);
  });
});

describe("adult level and teen version", () => {
  const adult = { ...VISITOR_ADULT, age: 30, authReal: true, authAdult: true };
  it("0 unverified, 1 teen or outlink visitor, 2 adult on, 3 adult off", () => {
    expect(adultLevel(false, VISITOR_ADULT)).toBe(0);
    expect(adultLevel(false, { ...VISITOR_ADULT, outLink: true })).toBe(1);
    expect(adultLevel(true, VISITOR_ADULT)).toBe(0);
    expect(adultLevel(true, { ...adult, age: 18 })).toBe(1);
    expect(adultLevel(true, { ...adult, age: 19 })).toBe(2);
    expect(adultLevel(true, { ...adult, is19Toggle: false })).toBe(3);
    expect(adultLevel(true, { ...adult, authReal: false })).toBe(0);
  });
  it("teen version: not an adult channel, or level 1 or 3", () => {
    expect(isTeenVersion(false, 2)).toBe(true);
    expect(isTeenVersion(true, 0)).toBe(false);
    expect(isTeenVersion(true, 1)).toBe(true);
    expect(isTeenVersion(true, 2)).toBe(false);
    expect(isTeenVersion(true, 3)).toBe(true);
  });
  it("adult content shows at level 2; verification needed for 19+ below level 2", () => {
    expect([0, 1, 2, 3].map((l) => showsAdultContent(l))).toEqual([false, false, true, false]);
    expect(needsAdultVerification(19, 0)).toBe(true);
    expect(needsAdultVerification(19, 1)).toBe(true);
    expect(needsAdultVerification(19, 2)).toBe(false);
    expect(needsAdultVerification(19, 3)).toBe(false);
    expect(needsAdultVerification(15, 0)).toBe(false);
  });
});

describe("login state rule", () => {
  it("needs the flag, the web-id cookie and equality with the stored bid", () => {
    expect(loginState(true, "b1", "b1")).toBe(true);
    expect(loginState(false, "b1", "b1")).toBe(false);
    expect(loginState(true, undefined, "b1")).toBe(false);
    expect(loginState(true, "b2", "b1")).toBe(false);
    expect(loginState(true, "b1", undefined)).toBe(false);
  });
});

describe("environment and URLs", () => {
  it("cookie mode per environment", () => {
    expect(envOf("127.0.0.1")).toBe("dev");
    expect(envOf("localhost")).toBe("dev");
    expect(envOf("stage.example.com")).toBe("stage");
    expect(envOf("m.example.com")).toBe("live");
    expect(envOf("127.0.0.1", "live")).toBe("live");
    expect(envOf("127.0.0.1", "bogus")).toBe("dev");
  });
  it("auto-login and login URLs carry the return path", () => {
    expect(autoLoginUrl("/comic?x=1")).toBe("/api/v-1/user/login_auto.asp?new_url=%2Fcomic%3Fx%3D1");
    expect(loginUrl("/a?b=1")).toBe("/nuxgin?url=%2Fa%3Fb%3D1");
    expect(loginUrl("/a", true)).toBe("/nuxgin?url=%2Fa&from=adult");
  });
  it("return targets stay on the site", () => {
    expect(safeReturn("/comic")).toBe("/comic");
    expect(safeReturn("https://evil.example")).toBe("/");
    expect(safeReturn("//evil.example")).toBe("/");
    expect(safeReturn("/\\evil")).toBe("/");
    expect(safeReturn(null)).toBe("/");
    // what browsers strip or read as a slash
    for (const evil of ["/\t/evil.example", "/\n/evil.example", "/./\\evil.example", "/%09/x\\", "\\\\evil.example"]) expect(safeReturn(evil), evil).toBe("/");
    expect(safeReturn("/cs/faq?x=1#top")).toBe("/cs/faq?x=1#top");
  });
  it("Android adult flag: Y on, anything else off; outlink flag", () => {
    expect(androidAdultFlag("?adultFlag=Y")).toBe(true);
    expect(androidAdultFlag("?adultFlag=N")).toBe(false);
    expect(androidAdultFlag("?adultFlag=y")).toBe(false);
    expect(androidAdultFlag("")).toBe(false);
    expect(hasOutLink("?outlink")).toBe(true);
    expect(hasOutLink("?outlink=naver")).toBe(true);
    expect(hasOutLink("?x=1")).toBe(false);
  });
  it("email rule", () => {
    expect(validEmail("reader.one-1@mail.example.co")).toBe(true);
    expect(validEmail("a@b.c")).toBe(false);
    expect(validEmail("a@b.abcde")).toBe(false);
    expect(validEmail("a b@c.com")).toBe(false);
    expect(validEmail("a@com")).toBe(false);
  });
});

describe("startup user resolution", () => {
  const base: StartupInput = {
    isApp: false,
    online: true,
    env: "live",
    member: null,
    webId: undefined,
    cookieMode: undefined,
    stored: null,
    saveLogin: null,
    nowSec: 1000,
  };
  const member = { uid: "5", loginType: "N", toggle19On: true, mode: "live" };
  const stored = { uid: "5", bid: "b5", encId: "e", mode: "live" as const, authInfo: { uid: "5", bid: "b5", email: "", loginType: "N", authType: "" }, adultInfo: VISITOR_ADULT };

  it("1. member id and web id match the stored session: nothing changes", () => {
    expect(decideStartup({ ...base, member, webId: "b5", stored })).toEqual({ kind: "keep" });
  });
  it("2. id without web id: auto-login", () => {
    expect(decideStartup({ ...base, member, webId: undefined, stored }).kind).toBe("autoLogin");
  });
  it("3. logged-in web user not matching the stored session: verify with the server; cookie mode must match", () => {
    expect(decideStartup({ ...base, member, webId: "b6", stored }).kind).toBe("verify");
    expect(decideStartup({ ...base, member, webId: "b5", stored: null }).kind).toBe("verify");
    expect(decideStartup({ ...base, member, webId: "b5", stored: { ...stored, mode: "stage" } }).kind).toBe("verify");
    expect(decideStartup({ ...base, member, webId: "b5", stored, cookieMode: "stage" }).kind).toBe("autoLogin");
    // The web id against the encrypted id the server returned ({hash}), not a plain bid.
    expect(verifyMatches("e5", "e5")).toBe(true);
    expect(verifyMatches("b5", "e5")).toBe(false);
    expect(verifyMatches("b5", "")).toBe(false);
    expect(verifyMatches("", "")).toBe(false);
    expect(verifyMatches("b5", undefined)).toBe(false);
    expect(firstEncrypted({ encryptList: ["e5", ""] })).toBe("e5");
    expect(firstEncrypted({ encryptList: [] })).toBe("");
    expect(firstEncrypted(null)).toBe("");
  });
  it("4. no member cookie but a valid save-login outside dev: auto-login", () => {
    const saveLogin = { id: "5", password: "1", expiry: 2000 };
    expect(decideStartup({ ...base, saveLogin }).kind).toBe("autoLogin");
    expect(decideStartup({ ...base, env: "stage", saveLogin }).kind).toBe("autoLogin");
    expect(decideStartup({ ...base, env: "dev", saveLogin }).kind).toBe("none");
    expect(decideStartup({ ...base, saveLogin: { ...saveLogin, expiry: 999 } }).kind).toBe("none");
  });
  it("5. otherwise none; in the app the user comes from cookies", () => {
    expect(decideStartup(base).kind).toBe("none");
    expect(decideStartup({ ...base, isApp: true, member }).kind).toBe("app");
    expect(decideStartup({ ...base, isApp: true }).kind).toBe("none");
  });
  it("offline on the web is error 40; the app is not affected", () => {
    expect(decideStartup({ ...base, online: false }).kind).toBe("offline");
    expect(decideStartup({ ...base, online: false, isApp: true, member }).kind).toBe("app");
  });
  it("offline with the shell from the service worker: the stored session if the cookies name it, else a visitor; never 40 or a server check", () => {
    const off = { ...base, online: false, shellCached: true };
    expect(decideStartup(off).kind).toBe("none");
    expect(decideStartup({ ...off, member, webId: "b5", stored }).kind).toBe("keep");
    // online these would verify or go to auto-login: both need the server
    expect(decideStartup({ ...off, member, webId: "b5" }).kind).toBe("none");
    expect(decideStartup({ ...off, member }).kind).toBe("none");
    expect(decideStartup({ ...off, member, webId: "b5", stored: { ...stored, bid: "other" } }).kind).toBe("none");
  });
});

describe("member-only actions", () => {
  it("a member acts; a guest goes to login (native in the app); a visitor is asked", () => {
    expect(memberCheck({ isLogin: true, isGuest: false }, true)).toBe("member");
    expect(memberCheck({ isLogin: true, isGuest: false }, false)).toBe("member");
    expect(memberCheck({ isLogin: true, isGuest: true }, true)).toBe("nativeLogin");
    expect(memberCheck({ isLogin: true, isGuest: true }, false)).toBe("webLogin");
    expect(memberCheck({ isLogin: false, isGuest: false }, true)).toBe("askLogin");
    expect(memberCheck({ isLogin: false, isGuest: false }, false)).toBe("askLogin");
  });
});

describe("audience: contract/cases/audience.json, the table the edge and the writer run", () => {
  const table = contractCases<AudienceCases>("audience.json").cases;
  it("covers all six channels", () => {
    expect(new Set(table.map((c) => c.channel)).size).toBe(6);
  });
  it.each(table)("$channel login=$login level $level: teen $teenVersion, adult content $adultContent, gate $gate", (c) => {
    const adultCh = isAdultChannel(c.channel as Channel);
    expect(isTeenVersion(adultCh, c.level)).toBe(c.teenVersion);
    expect(showsAdultContent(c.level, adultCh)).toBe(c.adultContent);
    expect(adultGate(adultCh, c.login, c.level)).toBe(c.gate);
  });
  it("asks no adult to verify: an adult with the toggle off is offered the toggle", () => {
    expect(adultGate(true, true, 3)).toBe("toggle");
    expect(adultGate(false, true, 2)).toBe("notInApp");
    expect(adultGate(true, true, 0, 15)).toBe("none");
  });
});

describe("return targets (seed §8: a non-local target is a full replace)", () => {
  const hosts = ["store.example", "m.store.example:8443"];
  it("keeps paths in the app", () => {
    expect(returnTarget("/comic?x=1", hosts)).toEqual({ kind: "local", path: "/comic?x=1" });
    expect(returnTarget(null, hosts)).toEqual({ kind: "local", path: "/" });
  });
  it("replaces the page for the store's own hosts", () => {
    expect(returnTarget("https://store.example/event?id=3", hosts)).toEqual({ kind: "replace", href: "https://store.example/event?id=3" });
    expect(returnTarget("HTTP://M.Store.Example:8443/x", hosts)).toEqual({ kind: "replace", href: "http://m.store.example:8443/x" });
  });
  it.each([
    "https://evil.example/",
    "https://store.example.evil.example/",
    "https://store.example@evil.example/",
    "https://user:pw@store.example/",
    "//evil.example/",
    "javascript:alert(1)",
    "https://store.example\\@evil.example/",
    "https://m.store.example/", // another port than the one named
    "ftp://store.example/",
    " https://store.example/",
  ])("refuses %s: goes to /", (u) => {
    expect(returnTarget(u, hosts)).toEqual({ kind: "local", path: "/" });
  });
  it("follows a path with the router and a store address with a full replace", () => {
    const nav: unknown[] = [];
    const rep: string[] = [];
    goReturn({ kind: "local", path: "/cs" }, (to, o) => nav.push([to, o]), (h) => rep.push(h));
    goReturn({ kind: "replace", href: "https://store.example/" }, (to, o) => nav.push([to, o]), (h) => rep.push(h));
    expect(nav).toEqual([["/cs", { replace: true }]]);
    expect(rep).toEqual(["https://store.example/"]);
  });
});
