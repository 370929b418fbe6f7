import { afterEach, describe, expect, it, vi } from "vitest";
import { openCertification, PORTONE_SDK, redirectUrl } from "./identityVerification";

const started = { identityVerificationId: "iv-1", storeId: "store-1", channelKey: "ch-1" };

afterEach(() => {
  vi.unstubAllGlobals();
  delete window.PortOne;
});

describe("identity verification", () => {
  it("comes back to this page without a previous return's parameters", () => {
    const loc = new URL(
      "https://store.example/adultverification?url=%2Fcs&korea=ok&identityVerificationId=iv-0&identityVerificationTxId=tx&transactionType=IDENTITY_VERIFICATION&code=X&message=m",
    ) as unknown as Location;
    expect(redirectUrl(loc)).toBe("https://store.example/adultverification?url=%2Fcs&korea=ok");
  });

  it("opens the sandbox's certification page with the return address", async () => {
    const assign = vi.fn();
    vi.stubGlobal("location", { ...window.location, assign });
    const res = await openCertification({ ...started, pageUrl: "http://127.0.0.1:9/identity-verification?storeId=store-1" }, "https://store.example/adultverification");
    expect(res).toBeUndefined();
    expect(assign).toHaveBeenCalledWith(
      "http://127.0.0.1:9/identity-verification?storeId=store-1&redirectUrl=https%3A%2F%2Fstore.example%2Fadultverification",
    );
  });

  it("asks PortOne's SDK for the verification the writer issued when there is no sandbox", async () => {
    const requestIdentityVerification = vi.fn(async () => ({ identityVerificationId: "iv-1" }));
    window.PortOne = { requestIdentityVerification };
    const res = await openCertification(started, "https://store.example/adultverification");
    expect(res).toEqual({ identityVerificationId: "iv-1" });
    expect(requestIdentityVerification).toHaveBeenCalledWith({ ...started, redirectUrl: "https://store.example/adultverification" });
    expect(PORTONE_SDK).toBe("https://cdn.portone.io/v2/browser-sdk.js");
  });
});
