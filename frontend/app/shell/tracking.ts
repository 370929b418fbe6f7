// Page-view tracking (seed §4, §7): every route change except product detail
// queues a page view; the detail page queues a view_content instead (its
// work, section, genre), once per open. The queue goes to the edge's tracking
// endpoint in batches, and whatever is left when the page is hidden goes by
// sendBeacon.
//
// Analytics counts a view_content as a detail view of the work (top works,
// rankings) and as the funnel's detail step; the viewer's step is its page
// view (/viewer...). So the viewer sends no view_content: it would count as a
// second detail view and put readers who came straight to the viewer through
// the detail step.
//
// Every event carries the page's own id, so a batch sent again (after a failed
// or unanswered call, or by beacon) is stored once: the edge keeps the id, the
// events sent again are marked `retry`, and analytics drops the copies. The ad pixel gets the event_id the edge
// answered, and is still sent, without it, when the call failed (seed §7).

export const TRACK_EVENTS_PATH = "/home/api/v1/tracking/events";
export const MAX_BATCH = 20;
export const FLUSH_MS = 5000;
/** A failed batch is sent again this many times at most (same ids). */
export const MAX_RETRIES = 2;

/**
 * retry marks an event sent before without an answer: the edge published the
 * first try with other pages' events, where the stream's duplicate window
 * cannot match it, so analytics checks retried events against what it stored.
 */
export type PageViewEvent = { id: string; type: "page_view"; curPageUrl: string; url: string; referrer?: string; props?: Record<string, string>; retry?: boolean };
/** A work seen on its detail page (edge: tracking.ClientEvent). */
export type ViewContentEvent = Omit<PageViewEvent, "type"> & { type: "view_content"; pid: string; section: string; genreId?: string; vol?: number };
/** SearchEvent: a search the reader settled on; the edge keeps props.q only and adds the top hit. */
export type SearchEvent = Omit<PageViewEvent, "type" | "props"> & { type: "search"; props: { q: string } };
export type TrackEvent = PageViewEvent | ViewContentEvent | SearchEvent;
/** What the detail page knows about the work it shows. */
export type ContentView = { url: string; pid: string; section: string; genreId?: string; vol?: number };

/** Product detail pages send their own view (with the product) instead. */
export function isProductDetail(pathname: string): boolean {
  return /^\/[^/]+\/detail(\/|$)/.test(pathname);
}

/** Admin screens are not store traffic. */
export function isAdminPage(pathname: string): boolean {
  return pathname === "/admin" || pathname.startsWith("/admin/");
}

/** newEventId makes a random UUID (v4) without crypto.randomUUID, which plain-http pages lack. */
export function newEventId(): string {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export type TrackerDeps = {
  /** send posts a batch; its answer holds the stored ids in order (event_ids). */
  send: (events: TrackEvent[]) => Promise<unknown>;
  beacon?: (url: string, data: Blob) => boolean;
  /** pixel tells the ad pixel about a page view: with the edge's event id, or without on failure. */
  pixel?: (url: string, eventId?: string) => void;
  newId?: () => string;
  flushMs?: number;
  maxBatch?: number;
};

type Queued = { ev: TrackEvent; tries: number; pixelled: boolean };

/** wire is what goes to the edge for a queued event: marked when it was sent before. */
function wire(q: Queued): TrackEvent {
  return q.tries > 0 ? { ...q.ev, retry: true } : q.ev;
}

function answerIds(answer: unknown): string[] {
  const ids = (answer as { event_ids?: unknown } | null | undefined)?.event_ids;
  return Array.isArray(ids) ? ids.map((x) => (typeof x === "string" ? x : "")) : [];
}

export class Tracker {
  private queue: Queued[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  /** The last route change told to pageView, excluded ones too: where a view_content came from. */
  private at?: { url: string; referrer?: string };
  constructor(private deps: TrackerDeps) {}
  get pending(): readonly TrackEvent[] {
    return this.queue.map((q) => q.ev);
  }
  /** pageView queues a page view for url (path + query); false when the path is excluded. */
  pageView(url: string, referrer?: string, channel?: string): boolean {
    this.at = { url, referrer };
    const path = url.split("?")[0];
    if (isProductDetail(path) || isAdminPage(path)) return false;
    const ev: PageViewEvent = { id: (this.deps.newId ?? newEventId)(), type: "page_view", curPageUrl: url, url };
    if (referrer) ev.referrer = referrer;
    if (channel) ev.props = { channel };
    this.push({ ev, tries: 0, pixelled: false });
    return true;
  }
  /**
   * viewContent queues a view of a work at url (the detail page, path +
   * query); false without a work. The referrer is the one the route change
   * to url had. The ad pixel counts page views only: it is not told.
   */
  viewContent(v: ContentView, channel?: string): boolean {
    if (!v.pid || !v.section) return false;
    const ev: ViewContentEvent = { id: (this.deps.newId ?? newEventId)(), type: "view_content", curPageUrl: v.url, url: v.url, pid: v.pid, section: v.section };
    if (v.genreId) ev.genreId = v.genreId;
    if (v.vol !== undefined && v.vol > 0) ev.vol = v.vol;
    if (this.at?.url === v.url && this.at.referrer) ev.referrer = this.at.referrer;
    if (channel) ev.props = { channel };
    this.push({ ev, tries: 0, pixelled: true });
    return true;
  }
  /**
   * search queues a search the reader settled on (pressed search, or opened
   * a hit) from the page at url; false for an empty keyword. Typing is not a
   * search: popular searches count what readers looked for, not each
   * keystroke's prefix. The ad pixel is not told.
   */
  search(q: string, url: string): boolean {
    const kw = q.trim();
    if (!kw) return false;
    const ev: SearchEvent = { id: (this.deps.newId ?? newEventId)(), type: "search", curPageUrl: url, url, props: { q: kw } };
    this.push({ ev, tries: 0, pixelled: true });
    return true;
  }
  private push(q: Queued) {
    this.queue.push(q);
    if (this.queue.length >= (this.deps.maxBatch ?? MAX_BATCH)) void this.flush();
    else this.schedule();
  }
  private schedule() {
    if (this.timer === undefined) this.timer = setTimeout(() => void this.flush(), this.deps.flushMs ?? FLUSH_MS);
  }
  private pixel(q: Queued, eventId?: string) {
    if (q.pixelled || !this.deps.pixel) return;
    q.pixelled = true;
    try {
      this.deps.pixel(q.ev.curPageUrl, eventId);
    } catch {
      // The pixel is a third party's: never let it disturb the page.
    }
  }
  async flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, this.deps.maxBatch ?? MAX_BATCH);
    if (batch.length === 0) return;
    try {
      const ids = answerIds(await this.deps.send(batch.map(wire)));
      batch.forEach((q, i) => this.pixel(q, ids[i] || undefined));
    } catch {
      // Tracking never disturbs the reader. The pixel goes now, without an
      // id; the batch is tried again later with the same ids (a call that
      // failed after the edge stored it is then dropped as a copy).
      batch.forEach((q) => this.pixel(q));
      const again = batch.filter((q) => ++q.tries <= MAX_RETRIES);
      this.queue.unshift(...again);
      if (this.queue.length > 0) this.schedule();
      return;
    }
    if (this.queue.length > 0) void this.flush();
  }
  /** flushBeacon hands the whole queue to sendBeacon (page hide: fetch may be cut off). */
  flushBeacon(): boolean {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0 || !this.deps.beacon) return false;
    let ok = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.deps.maxBatch ?? MAX_BATCH);
      const blob = new Blob([JSON.stringify({ events: batch.map(wire) })], { type: "application/json" });
      ok = this.deps.beacon(TRACK_EVENTS_PATH, blob) && ok;
      // A beacon has no answer: the pixel goes without an id.
      batch.forEach((q) => this.pixel(q));
    }
    return ok;
  }
  /** attach flushes by beacon when the page is hidden or unloaded; returns the detach. */
  attach(win: Window = window): () => void {
    const onHide = () => this.flushBeacon();
    const onVis = () => win.document.visibilityState === "hidden" && this.flushBeacon();
    win.addEventListener("pagehide", onHide);
    win.document.addEventListener("visibilitychange", onVis);
    return () => {
      win.removeEventListener("pagehide", onHide);
      win.document.removeEventListener("visibilitychange", onVis);
    };
  }
}
