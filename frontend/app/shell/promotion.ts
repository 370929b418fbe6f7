// The promotion library (seed §9: version 20250611): the marketing team's
// script for event pages. It is loaded once per page load, where an event is
// shown, and only when its address is configured: at build time
// (VITE_PROMOTION_LIB_URL) or by the page that hosts the app
// (window.SF_PROMOTION_LIB_URL, set before the app starts). Its version goes
// in the address's `v` query, so a new version is never answered from a
// cache. The edge's page policy (CSP) runs scripts of the store's own origin
// only: the address is a path of the store (the vendor's file among the
// static files, or a path the CDN forwards to the vendor); another origin is
// blocked by the browser until the edge's policy names it.
import { useEffect } from "react";
import { PROMOTION_LIB_VERSION } from "./timing";

export const PROMOTION_SCRIPT_ID = "sf-promotion-lib";

/** The library's address with the seed's version in its `v` query (other query parameters kept). */
export function promotionLibUrl(base: string, pageHref: string): string {
  const u = new URL(base, pageHref);
  u.searchParams.set("v", PROMOTION_LIB_VERSION);
  return u.href;
}

export function configuredPromotionLib(): string | undefined {
  const base = (globalThis as { SF_PROMOTION_LIB_URL?: string }).SF_PROMOTION_LIB_URL ?? import.meta.env.VITE_PROMOTION_LIB_URL;
  return typeof base === "string" && base !== "" ? base : undefined;
}

/** Adds the library's script to the page once; nothing when no address is configured. A third party's failure stays its own. */
export function loadPromotionLib(doc: Document = document, base = configuredPromotionLib()) {
  if (!base || doc.getElementById(PROMOTION_SCRIPT_ID)) return;
  const el = doc.createElement("script");
  el.id = PROMOTION_SCRIPT_ID;
  el.async = true;
  el.src = promotionLibUrl(base, doc.location.href);
  doc.head.appendChild(el);
}

/** Loads the promotion library when the calling screen shows. */
export function usePromotionLib() {
  useEffect(() => loadPromotionLib(), []);
}
