import { afterEach, describe, expect, it } from "vitest";
import { clearLocal } from "~/utils/userStore";
import { clearSaved, isExpired, pruneExpired, readSaved, SAVED_KEY, writeSaved, type SavedVolume } from "./savedIndex";
import { expiryOf, formatBytes, planRoom, SAVE_TOO_BIG, saveWidth } from "./savedVolumes";

const MB = 1024 * 1024;
const vol = (no: number, savedAt: number, bytes: number, expiresAt: number | null = null): SavedVolume => ({
  uid: "5",
  pid: "p1",
  no,
  title: "작품",
  volTitle: `${no}화`,
  savedAt,
  expiresAt,
  bytes,
  urls: [`/content/p1/${no}/v/1?w=720`, `/__saved/p1/${no}`],
});

/** Cache Storage as jsdom lacks it: named maps of keys, enough to see what is deleted. */
function memoryCaches() {
  const stores = new Map<string, Map<string, string>>();
  const api = {
    stores,
    async open(name: string) {
      if (!stores.has(name)) stores.set(name, new Map());
      const m = stores.get(name)!;
      return { delete: async (k: string) => m.delete(k) } as unknown as Cache;
    },
    async delete(name: string) {
      return stores.delete(name);
    },
  };
  return api;
}

afterEach(() => localStorage.clear());

describe("how long a saved volume stays", () => {
  it("a bought volume for good, a rental until its end; a preview, a free volume or no token cannot be saved", () => {
    expect(expiryOf({ isAuth: true, token: "t", authType: "B" })).toBeNull();
    expect(expiryOf({ isAuth: true, token: "t", authType: "R", authEndDate: "2026-11-28T03:00:00Z" })).toBe(Date.parse("2026-11-28T03:00:00Z"));
    expect(expiryOf({ isAuth: true, token: "t", authType: "R" })).toBeUndefined();
    expect(expiryOf({ isAuth: true, token: "t", authType: "F" })).toBeUndefined();
    expect(expiryOf({ isAuth: false, token: "t", authType: "B" })).toBeUndefined();
    expect(expiryOf({ isAuth: true, authType: "B" })).toBeUndefined();
  });
  it("a rental is gone at its end to the millisecond; an owned volume never", () => {
    expect(isExpired({ expiresAt: 1000 }, 999)).toBe(false);
    expect(isExpired({ expiresAt: 1000 }, 1000)).toBe(true);
    expect(isExpired({ expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
  it("pruneExpired drops ended rentals from the list and their pages from the cache, nothing else", async () => {
    const caches = memoryCaches();
    const cache = await caches.open("sf-saved");
    const ended = vol(1, 10, MB, 5000);
    const running = vol(2, 20, MB, 9000);
    const owned = vol(3, 30, MB);
    const all = [ended, running, owned];
    for (const v of all) for (const u of v.urls) caches.stores.get("sf-saved")!.set(u, "x");
    writeSaved(all);
    await pruneExpired(6000, { caches });
    expect(readSaved().map((v) => v.no)).toEqual([2, 3]);
    expect([...caches.stores.get("sf-saved")!.keys()].some((k) => k.includes("/p1/1"))).toBe(false);
    expect(caches.stores.get("sf-saved")!.size).toBe(4);
    expect(cache).toBeTruthy();
  });
});

describe("the storage bound", () => {
  const LIMIT = 10 * MB;
  it("fits under the limit: nothing goes", () => {
    expect(planRoom([vol(1, 1, 3 * MB), vol(2, 2, 3 * MB)], 4 * MB, LIMIT, 0)).toEqual({ evict: [] });
  });
  it("over it: the oldest saved go first, only as many as needed", () => {
    const a = vol(1, 100, 4 * MB);
    const b = vol(2, 50, 4 * MB); // saved first
    const c = vol(3, 200, 1 * MB);
    const plan = planRoom([a, b, c], 5 * MB, LIMIT, 0);
    expect("evict" in plan && plan.evict.map((v) => v.no)).toEqual([2]);
    const more = planRoom([a, b, c], 9 * MB, LIMIT, 0);
    expect("evict" in more && more.evict.map((v) => v.no)).toEqual([2, 1]);
  });
  it("ended rentals go before any owned volume, whatever their age", () => {
    const plan = planRoom([vol(1, 1, 2 * MB), vol(2, 500, 2 * MB, 100)], 1 * MB, LIMIT, 200);
    expect("evict" in plan && plan.evict.map((v) => v.no)).toEqual([2]);
  });
  it("a volume over the limit by itself is refused with the member's message, nothing evicted", () => {
    expect(planRoom([vol(1, 1, MB)], LIMIT + 1, LIMIT, 0)).toEqual({ refuse: SAVE_TOO_BIG });
    expect(SAVE_TOO_BIG).toMatch(/오프라인 저장 한도/);
  });
  it("shown as a reader reads it; one width per page, the screen's", () => {
    expect(formatBytes(512 * 1024)).toBe("512KB");
    expect(formatBytes(12.34 * MB)).toBe("12.3MB");
    expect(formatBytes(1.5 * 1024 * MB)).toBe("1.5GB");
    expect(saveWidth(390, 2.75)).toBe(1080);
    expect(saveWidth(360, 1)).toBe(360);
    expect(saveWidth(360, 2)).toBe(720);
    expect(saveWidth(1200, 2)).toBe(1080);
  });
});

describe("logout clears saved volumes", () => {
  it("clearSaved forgets the list and deletes the whole cache", async () => {
    const caches = memoryCaches();
    await caches.open("sf-saved");
    writeSaved([vol(1, 1, MB)]);
    await clearSaved({ caches });
    expect(localStorage.getItem(SAVED_KEY)).toBeNull();
    expect(caches.stores.has("sf-saved")).toBe(false);
  });
  it("the logout of this tab or another (clearLocal) takes them with the session", () => {
    writeSaved([vol(1, 1, MB)]);
    clearLocal();
    expect(readSaved()).toEqual([]);
  });
});
