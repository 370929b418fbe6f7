import { describe, expect, it } from "vitest";
import type { Http, RequestOptions } from "~/utils/http";
import type { CouponInfo } from "~/utils/storeApi";
import { afterPurchase, buyJumpingPass, JUMPING_PASS_BUY, kstDateTime, loadPasses, passesOf } from "./jumpingPass";

const pcp = (jumpingCount: number, jumpingExpireDates: string[]): CouponInfo => ({
  RCPInfo: { count: 0, usedCnt: 0, isRecv: true },
  PCPInfo: { passCount: 3, jumpingCount, jumpingExpireDates },
});

describe("jumping pass", () => {
  it("is bought with an idempotency key and an empty body (identity from the session)", async () => {
    const calls: [string, RequestOptions | undefined][] = [];
    const http = (async (path: string, opts?: RequestOptions) => (calls.push([path, opts]), { jcpId: 7 })) as Http;
    expect(await buyJumpingPass("key-1", http)).toEqual({ jcpId: 7 });
    expect(calls).toEqual([[JUMPING_PASS_BUY, { method: "POST", json: {}, headers: { "Idempotency-Key": "key-1" } }]]);
    expect(JUMPING_PASS_BUY).toBe("/home/api/v1/coupons/jumping-pass");
  });

  it("reads the member's passes through any work's coupons, jumping passes only", async () => {
    const asked: string[] = [];
    const p = await loadPasses("wt1", async (pid) => (asked.push(pid), pcp(2, ["2026-12-01T00:00:00Z", "2026-12-03T00:00:00Z"])));
    expect(asked).toEqual(["wt1"]);
    expect(p).toEqual({ count: 2, expires: ["2026-12-01T00:00:00Z", "2026-12-03T00:00:00Z"] });
    expect(await loadPasses(undefined, async () => pcp(1, []))).toBeNull();
    expect(await loadPasses("wt1", async () => Promise.reject(new Error("401")))).toBeNull();
    expect(passesOf(pcp(-1, []).PCPInfo).count).toBe(0); // seed §4: never below 0
  });

  it("without a fresh read, adds the pass just bought in expiry order", () => {
    const before = { count: 1, expires: ["2026-12-20T00:00:00Z"] };
    expect(afterPurchase(before, { expiresAt: "2026-12-10T00:00:00Z" })).toEqual({ count: 2, expires: ["2026-12-10T00:00:00Z", "2026-12-20T00:00:00Z"] });
    expect(before.count).toBe(1);
    expect(afterPurchase(null, { expiresAt: "2026-12-10T00:00:00Z" })).toEqual({ count: 1, expires: ["2026-12-10T00:00:00Z"] });
  });

  it("shows expiry in Korean time", () => {
    expect(kstDateTime("2026-12-20T15:05:00Z")).toBe("2026.12.21 00:05");
    expect(kstDateTime("2026-01-02T03:04:05.123456789+09:00")).toBe("2026.01.02 03:04");
    expect(kstDateTime("soon")).toBe("");
  });
});
