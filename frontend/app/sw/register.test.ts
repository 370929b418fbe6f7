import { describe, expect, it, vi } from "vitest";
import { registerServiceWorker } from "./register";

/** A worker and a registration as the browser's: event targets with a state. */
class FakeWorker extends EventTarget {
  posted: unknown[] = [];
  constructor(public state: ServiceWorkerState) {
    super();
  }
  postMessage(m: unknown) {
    this.posted.push(m);
  }
  become(s: ServiceWorkerState) {
    this.state = s;
    this.dispatchEvent(new Event("statechange"));
  }
}

function browser(opts: { controlled: boolean; waiting?: FakeWorker; installing?: FakeWorker }) {
  const reg = Object.assign(new EventTarget(), { waiting: opts.waiting ?? null, installing: opts.installing ?? null });
  const container = Object.assign(new EventTarget(), {
    controller: opts.controlled ? {} : null,
    register: vi.fn(async () => reg as unknown as ServiceWorkerRegistration),
  });
  return { reg, container: container as unknown as ServiceWorkerContainer & { register: typeof container.register } };
}

describe("the update offer", () => {
  it("a release waiting when the page loads is offered; applying it tells the worker and reloads this tab only after the switch", async () => {
    const w = new FakeWorker("installed");
    const { container } = browser({ controlled: true, waiting: w });
    const reload = vi.fn();
    let apply: (() => void) | null = null;
    await registerServiceWorker((a) => (apply = a), container, reload);
    expect(container.register).toHaveBeenCalledWith("/sw.js", { scope: "/", updateViaCache: "none" });
    expect(apply).not.toBeNull();
    expect(reload).not.toHaveBeenCalled();
    apply!();
    expect(w.posted).toEqual([{ type: "SKIP_WAITING" }]);
    expect(reload).not.toHaveBeenCalled();
    container.dispatchEvent(new Event("controllerchange"));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("a release found while reading is offered once installed; without the reader's yes nothing reloads", async () => {
    const { reg, container } = browser({ controlled: true });
    const reload = vi.fn();
    const offer = vi.fn();
    await registerServiceWorker(offer, container, reload);
    const w = new FakeWorker("installing");
    reg.installing = w;
    reg.dispatchEvent(new Event("updatefound"));
    expect(offer).not.toHaveBeenCalled();
    w.become("installed");
    expect(offer).toHaveBeenCalledTimes(1);
    // Another tab applied it: this tab's page changes worker but is not reloaded.
    container.dispatchEvent(new Event("controllerchange"));
    expect(reload).not.toHaveBeenCalled();
  });

  it("a first install offers nothing (no old release to replace)", async () => {
    const w = new FakeWorker("installing");
    const { container } = browser({ controlled: false, installing: w });
    const offer = vi.fn();
    await registerServiceWorker(offer, container, vi.fn());
    w.become("installed");
    expect(offer).not.toHaveBeenCalled();
  });

  it("no worker possible (refused registration): the store goes on without one", async () => {
    const { container } = browser({ controlled: false });
    container.register.mockRejectedValueOnce(new Error("denied"));
    await expect(registerServiceWorker(vi.fn(), container, vi.fn())).resolves.toBeNull();
  });
});
