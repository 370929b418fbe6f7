// The modal stack (seed §4): adding an existing entry is ignored; going back
// pops the last entry; a route change clears it. The page scroll is locked
// while it holds anything (the iOS app locks natively through the bridge).

export class ModalStack {
  private items: string[] = [];
  private listeners = new Set<() => void>();
  constructor(private onChange: (items: readonly string[]) => void) {}
  get list(): readonly string[] {
    return this.items;
  }
  /**
   * subscribe tells fn of every change (for useSyncExternalStore): a sheet
   * the shell opens by itself, like the interests sheet, waits while the
   * member has one of theirs open.
   */
  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  };
  private changed() {
    this.onChange(this.items);
    this.listeners.forEach((fn) => fn());
  }
  push(id: string): boolean {
    if (this.items.includes(id)) return false;
    this.items = [...this.items, id];
    this.changed();
    return true;
  }
  /** pop removes the last entry (what "back" does). */
  pop(): string | undefined {
    const last = this.items[this.items.length - 1];
    if (last === undefined) return undefined;
    this.items = this.items.slice(0, -1);
    this.changed();
    return last;
  }
  remove(id: string) {
    if (!this.items.includes(id)) return;
    this.items = this.items.filter((x) => x !== id);
    this.changed();
  }
  clear() {
    if (this.items.length === 0) return;
    this.items = [];
    this.changed();
  }
}

export type ScrollLocker = (locked: boolean) => void;

/** scrollLocker locks the page: iOS app through the bridge's scroll enable, elsewhere the body. */
export function scrollLocker(isIOSApp: boolean, scrollEnable: (enabled: boolean) => boolean, doc: Document = document): ScrollLocker {
  let current = false;
  return (locked) => {
    if (locked === current) return;
    current = locked;
    if (isIOSApp) {
      scrollEnable(!locked);
      return;
    }
    if (locked) doc.body.setAttribute("data-scroll-lock", "true");
    else doc.body.removeAttribute("data-scroll-lock");
  };
}

/**
 * modalReporter tells the native app (the bridge's show modal) when the first
 * modal or dim opens and when the last one closes, so the app can hold its own
 * back gesture, pull-to-refresh and tab bar meanwhile. Only the changes are
 * sent; outside the app the bridge call does nothing.
 */
export function modalReporter(showModal: (show: boolean) => boolean): (shown: boolean) => void {
  let current = false;
  return (shown) => {
    if (shown === current) return;
    current = shown;
    showModal(shown);
  };
}
