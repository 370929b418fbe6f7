// Local and session storage keys of the screens (seed §3).

export const LOCAL = { quickView: "quickView", volOrder: "volOrder", novelFont: "sf_novel_font", webtoonWidth: "sf_wt_width" } as const;
export const SESSION = { listScroll: "listScroll", listIndex: "listIndex", detailContext: "detailContext", detailHint: "detailHint" } as const;

export type VolOrder = "old" | "latest";

function get(store: Storage | undefined, k: string): string | null {
  try {
    return store?.getItem(k) ?? null;
  } catch {
    return null;
  }
}
function put(store: Storage | undefined, k: string, v: string) {
  try {
    store?.setItem(k, v);
  } catch {
    /* storage blocked: the preference lasts for this page only */
  }
}
const local = () => (typeof localStorage === "undefined" ? undefined : localStorage);
const session = () => (typeof sessionStorage === "undefined" ? undefined : sessionStorage);

/** Volume order: 'old' (default) or 'latest'; special-price sets are always oldest first. */
export function volOrder(isSpecialPriceSet: boolean, store = local()): VolOrder {
  if (isSpecialPriceSet) return "old";
  return get(store, LOCAL.volOrder) === "latest" ? "latest" : "old";
}
export const setVolOrder = (o: VolOrder, store = local()) => put(store, LOCAL.volOrder, o);

/** Quick view: 'on' (default) or 'off'. */
export const quickView = (store = local()) => get(store, LOCAL.quickView) !== "off";
export const setQuickView = (on: boolean, store = local()) => put(store, LOCAL.quickView, on ? "on" : "off");

/** List scroll and index, remembered per list URL in the session. */
type ListPlace = { url: string; scroll: number; index: number };
export function saveListPlace(p: ListPlace, store = session()) {
  put(store, SESSION.listScroll, JSON.stringify({ url: p.url, y: p.scroll }));
  put(store, SESSION.listIndex, JSON.stringify({ url: p.url, i: p.index }));
}
export function listPlace(url: string, store = session()): { scroll: number; index: number } | null {
  try {
    const s = JSON.parse(get(store, SESSION.listScroll) ?? "null");
    const i = JSON.parse(get(store, SESSION.listIndex) ?? "null");
    if (!s || s.url !== url) return null;
    return { scroll: Number(s.y) || 0, index: i && i.url === url ? Number(i.i) || 0 : 0 };
  } catch {
    return null;
  }
}

export const setSession = (k: string, v: string, store = session()) => put(store, k, v);
export const getSession = (k: string, store = session()) => get(store, k);
export const getLocal = (k: string, store = local()) => get(store, k);
export const setLocal = (k: string, v: string, store = local()) => put(store, k, v);

/**
 * Detail context (seed §3's session key): the tab and scroll of the detail
 * page last shown, so returning to that work (from the viewer, a list, the
 * app) opens it where the reader left it. The scroll is measured from the
 * detail's own top (negative while the header above it still shows). The
 * detail hint is the volume the reader last opened from it, marked on return.
 */
export type DetailPlace = { tab: string; scroll: number };
export function saveDetailContext(pid: string, place: DetailPlace, store = session()) {
  put(store, SESSION.detailContext, JSON.stringify({ pid, tab: place.tab, y: Math.round(place.scroll) }));
}
export function detailContext(pid: string, store = session()): DetailPlace | null {
  try {
    const c = JSON.parse(get(store, SESSION.detailContext) ?? "null");
    if (!c || c.pid !== pid || typeof c.tab !== "string") return null;
    return { tab: c.tab, scroll: Number(c.y) || 0 };
  } catch {
    return null;
  }
}
/**
 * What arriving at a work's detail does with the saved context: the work last
 * shown comes back on its tab when the address names none, then at its scroll
 * once that tab is the one shown. Anything else (another work, or an address
 * naming another tab) is the router's: the top on a new visit, the history
 * entry's own place on Back and Forward. `shown` is the address's tab, null
 * when it names none; `tabs[0]` is the default tab.
 */
export type DetailArrival = { tab: string } | { scroll: number } | null;
export function detailArrival(ctx: DetailPlace | null, shown: string | null, tabs: readonly string[]): DetailArrival {
  if (!ctx || !tabs.includes(ctx.tab)) return null;
  if (shown === null && ctx.tab !== tabs[0]) return { tab: ctx.tab };
  return ctx.tab === (shown ?? tabs[0]) ? { scroll: ctx.scroll } : null;
}
export const saveDetailHint = (pid: string, no: number, store = session()) => put(store, SESSION.detailHint, JSON.stringify({ pid, no }));
export function detailHint(pid: string, store = session()): number | null {
  try {
    const h = JSON.parse(get(store, SESSION.detailHint) ?? "null");
    return h && h.pid === pid && Number.isInteger(h.no) ? h.no : null;
  } catch {
    return null;
  }
}
