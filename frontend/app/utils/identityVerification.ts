import type { AdultStart } from "~/utils/userStore";

/**
 * Identity verification (본인인증) through PortOne V2. The writer issues the
 * verification id (adult/start); the provider's window certifies the person
 * and sends the reader back to redirectUrl with identityVerificationId (and
 * code and message when it did not finish); the writer then reads the
 * provider's answer itself (adult/verify). Nothing the page says about the
 * person is trusted.
 *
 * In development the writer's identity sandbox stands in for the provider's
 * window (pageUrl, a page on another origin). With the real provider the page
 * loads PortOne's browser SDK, whose script the edge's Content-Security-Policy
 * must admit (see SECURITY.md, "Third parties").
 */
export const PORTONE_SDK = "https://cdn.portone.io/v2/browser-sdk.js";

/** The query parameters the provider's redirect adds to redirectUrl. */
export const RETURN_PARAMS = ["identityVerificationId", "identityVerificationTxId", "transactionType", "code", "message"];

export type CertificationResult = { identityVerificationId?: string; code?: string; message?: string };

type PortOneSDK = {
  requestIdentityVerification(req: {
    storeId: string;
    identityVerificationId: string;
    channelKey: string;
    redirectUrl: string;
  }): Promise<CertificationResult | undefined>;
};

declare global {
  interface Window {
    PortOne?: PortOneSDK;
  }
}

/** The page to come back to: this page's address without a previous return's parameters. */
export function redirectUrl(location: Location): string {
  const q = new URLSearchParams(location.search);
  for (const p of RETURN_PARAMS) q.delete(p);
  const qs = q.toString();
  return `${location.origin}${location.pathname}${qs ? `?${qs}` : ""}`;
}

function loadSDK(): Promise<PortOneSDK> {
  if (window.PortOne) return Promise.resolve(window.PortOne);
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = PORTONE_SDK;
    s.onload = () => (window.PortOne ? resolve(window.PortOne) : reject(new Error("PortOne SDK")));
    s.onerror = () => reject(new Error("PortOne SDK"));
    document.head.appendChild(s);
  });
}

/**
 * Opens the provider's certification for a started verification. With the
 * sandbox (and with the SDK's redirect on mobile) the browser leaves the
 * page and comes back to redirectUrl: undefined. The SDK's popup (desktop)
 * answers here instead.
 */
export async function openCertification(s: AdultStart, back: string): Promise<CertificationResult | undefined> {
  if (s.pageUrl) {
    window.location.assign(`${s.pageUrl}&redirectUrl=${encodeURIComponent(back)}`);
    return undefined;
  }
  const sdk = await loadSDK();
  return sdk.requestIdentityVerification({
    storeId: s.storeId,
    identityVerificationId: s.identityVerificationId,
    channelKey: s.channelKey,
    redirectUrl: back,
  });
}
