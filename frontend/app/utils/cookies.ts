// Cookie helpers. doc is injectable so tests can use a fresh jsdom document.

export function getCookie(name: string, doc: Document = document): string | undefined {
  for (const part of doc.cookie ? doc.cookie.split("; ") : []) {
    const i = part.indexOf("=");
    const k = i < 0 ? part : part.slice(0, i);
    if (k === name) {
      const v = i < 0 ? "" : part.slice(i + 1);
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }
  }
  return undefined;
}

export type CookieOptions = { maxAge?: number; path?: string; sameSite?: "Lax" | "Strict" | "None" };

export function cookieString(name: string, value: string, o: CookieOptions = {}): string {
  let s = `${name}=${encodeURIComponent(value)}; path=${o.path ?? "/"}`;
  if (o.maxAge !== undefined) s += `; max-age=${o.maxAge}`;
  s += `; SameSite=${o.sameSite ?? "Lax"}`;
  return s;
}

export function setCookie(name: string, value: string, o: CookieOptions = {}, doc: Document = document): void {
  doc.cookie = cookieString(name, value, o);
}

export function deleteCookie(name: string, doc: Document = document): void {
  doc.cookie = `${name}=; path=/; max-age=0`;
}
