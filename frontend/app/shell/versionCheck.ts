// The version check (seed §4, §7): the server's web version code above the
// page's own (24) means a new build is out: reload. Scheduled when the page
// comes back into view; a route change cancels the pending check.
import type { Http } from "~/utils/http";
import { APP_VERSION } from "./timing";

export const VERSION_PATH = "/protocol/appapi/mb/etc/version/web-version-code";
export const VERSION_CHECK_DELAY_MS = 1000;

export function shouldReload(serverVersion: unknown, own = APP_VERSION): boolean {
  const n = typeof serverVersion === "number" ? serverVersion : Number(serverVersion);
  return Number.isFinite(n) && n > own;
}

export class VersionCheck {
  private timer?: ReturnType<typeof setTimeout>;
  private ctrl?: AbortController;
  constructor(
    private http: Http,
    private reload: () => void,
    private delayMs = VERSION_CHECK_DELAY_MS,
  ) {}
  get pending() {
    return this.timer !== undefined || this.ctrl !== undefined;
  }
  schedule() {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, this.delayMs);
  }
  cancel() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.ctrl?.abort();
    this.ctrl = undefined;
  }
  async run(): Promise<boolean> {
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    try {
      const ans = await this.http<{ header: { code: number; version?: number | string } }>(VERSION_PATH, { method: "POST", signal: ctrl.signal });
      if (ctrl.signal.aborted) return false;
      if (ans.header.code === 200 && shouldReload(ans.header.version)) {
        this.reload();
        return true;
      }
    } catch {
      // No answer: keep the page as it is.
    } finally {
      if (this.ctrl === ctrl) this.ctrl = undefined;
    }
    return false;
  }
}
