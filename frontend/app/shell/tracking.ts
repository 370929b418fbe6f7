// Page-view tracking (seed §4, §7): every route change except product detail
// queues a page view; the queue goes to the edge's tracking endpoint in
// batches, and whatever is left when the page is hidden goes by sendBeacon.

export const TRACK_EVENTS_PATH = "/home/api/v1/tracking/events";
export const MAX_BATCH = 20;
export const FLUSH_MS = 5000;

export type PageViewEvent = { type: "page_view"; curPageUrl: string; url: string; referrer?: string; props?: Record<string, string> };

/** Product detail pages send their own view (with the product) instead. */
export function isProductDetail(pathname: string): boolean {
  return /^\/[^/]+\/detail(\/|$)/.test(pathname);
}

export type TrackerDeps = {
  send: (events: PageViewEvent[]) => Promise<unknown>;
  beacon?: (url: string, data: Blob) => boolean;
  flushMs?: number;
  maxBatch?: number;
};

export class Tracker {
  private queue: PageViewEvent[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  constructor(private deps: TrackerDeps) {}
  get pending(): readonly PageViewEvent[] {
    return this.queue;
  }
  /** pageView queues a page view for url (path + query); false when the path is excluded. */
  pageView(url: string, referrer?: string, channel?: string): boolean {
    const path = url.split("?")[0];
    if (isProductDetail(path)) return false;
    const ev: PageViewEvent = { type: "page_view", curPageUrl: url, url };
    if (referrer) ev.referrer = referrer;
    if (channel) ev.props = { channel };
    this.queue.push(ev);
    if (this.queue.length >= (this.deps.maxBatch ?? MAX_BATCH)) void this.flush();
    else if (this.timer === undefined) this.timer = setTimeout(() => void this.flush(), this.deps.flushMs ?? FLUSH_MS);
    return true;
  }
  async flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, this.deps.maxBatch ?? MAX_BATCH);
    if (batch.length === 0) return;
    try {
      await this.deps.send(batch);
    } catch {
      // Tracking never disturbs the reader.
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
      const blob = new Blob([JSON.stringify({ events: batch })], { type: "application/json" });
      ok = this.deps.beacon(TRACK_EVENTS_PATH, blob) && ok;
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
