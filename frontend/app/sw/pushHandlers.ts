// What the service worker does with a new-volume alarm (issue 19), apart
// from the event wiring in push.ts so it type-checks and tests with the
// page's libraries. The writer's payload is writer/push.Payload:
// {title, body, url, tag}, url the volume's viewer relative to the store.

export type AlarmPayload = { title: string; body: string; url: string; tag: string };

/** The title of a notification whose payload could not be read. */
export const FALLBACK_TITLE = "새 회차 알림";
const ICON = "/icons/app/icon-192.png";

/**
 * readPayload takes the push message's JSON; a message the store did not
 * write (or could not be read) still shows, opening the store's home: a
 * push that shows nothing makes browsers revoke the permission.
 */
export function readPayload(json: unknown): AlarmPayload {
  const p = (json && typeof json === "object" ? json : {}) as Partial<Record<keyof AlarmPayload, unknown>>;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const url = str(p.url);
  return {
    title: str(p.title) || FALLBACK_TITLE,
    body: str(p.body),
    // Only a path of this store: a payload must not send the reader elsewhere.
    url: url.startsWith("/") && !url.startsWith("//") ? url : "/",
    tag: str(p.tag),
  };
}

/** notificationOf is showNotification's arguments for a payload. */
export function notificationOf(p: AlarmPayload): [string, NotificationOptions] {
  return [p.title, { body: p.body, tag: p.tag || undefined, icon: ICON, badge: ICON, data: { url: p.url }, lang: "ko" }];
}

type WindowClientLike = { url: string; focus(): Promise<unknown>; navigate(url: string): Promise<unknown> };
export type ClientsLike = {
  matchAll(o: { type: "window"; includeUncontrolled: boolean }): Promise<readonly WindowClientLike[]>;
  openWindow(url: string): Promise<unknown>;
};

/**
 * openFromNotification brings the reader to url: a tab already there is
 * focused, else a store tab goes there, else a new window opens.
 */
export async function openFromNotification(path: string, origin: string, clients: ClientsLike): Promise<void> {
  const target = new URL(path, origin).href;
  const tabs = (await clients.matchAll({ type: "window", includeUncontrolled: true })).filter((c) => new URL(c.url).origin === origin);
  const there = tabs.find((c) => c.url === target);
  if (there) {
    await there.focus();
    return;
  }
  if (tabs.length > 0) {
    try {
      await tabs[0].navigate(target);
      await tabs[0].focus();
      return;
    } catch {
      // navigate() takes only tabs this worker controls: open a new one.
    }
  }
  await clients.openWindow(target);
}
