// The seed's HTTP helper (§7, §8): every call to the product host sends the
// channel header, a random request token and cache-disabling headers, and
// verifies the answer's signature. Three client error kinds: API (the success
// check failed), network (no answer) and forged (signature mismatch).

import { SIGNED_FOR } from "~/sw/signedAnswer";
import { sha256Hex } from "./sha256";

export const REQUEST_TIMEOUT_MS = 50_000;
export const SIGNATURE_PREFIX = "SFS1 ";
export const SIGNATURE_PREFIX_V2 = "SFS2 ";
/**
 * The signature version the page asks for (X-Signature-Version). SFS2 lets
 * the server hash a cached body once instead of on every request
 * (contract/signature.go); answers signed SFS1 (a server not yet updated)
 * are still verified.
 */
export const SIGNATURE_VERSION = "2";

export type ApiHeader = { code: number; message: string; [k: string]: unknown };
export type Envelope = { header: ApiHeader };

export type HttpErrorKind = "api" | "network" | "forged";

export class HttpError extends Error {
  readonly kind: HttpErrorKind;
  /** HTTP status (0 when there was no answer). */
  readonly status: number;
  /** header.code of the answer envelope, else the HTTP status. */
  readonly code: number;
  readonly body: unknown;
  constructor(kind: HttpErrorKind, status: number, code: number, message: string, body?: unknown) {
    super(message);
    this.name = kind === "api" ? "ApiError" : kind === "network" ? "NetworkError" : "ForgedResponseError";
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export const isHttpError = (e: unknown): e is HttpError => e instanceof HttpError;

/** signature returns the value the server must put in the Authorization answer header. */
export async function signature(status: number, token: string, body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(`${status}\n${token}\n`);
  const all = new Uint8Array(head.length + body.length);
  all.set(head);
  all.set(body, head.length);
  return SIGNATURE_PREFIX + (await sha256Hex(all));
}

/**
 * signatureV2 is the SFS2 value: SHA-256 over the hex SHA-256 of the body,
 * then status and token. Same inputs as SFS1; the server keeps the body's part.
 */
export async function signatureV2(status: number, token: string, body: Uint8Array): Promise<string> {
  const digest = await sha256Hex(body);
  return SIGNATURE_PREFIX_V2 + (await sha256Hex(new TextEncoder().encode(`${digest}\n${status}\n${token}`)));
}

/**
 * verifySignature checks the answer's Authorization value against status,
 * token and body, in the version the value names (SFS2 or SFS1).
 */
export async function verifySignature(value: string | null, status: number, token: string, body: Uint8Array): Promise<boolean> {
  if (value?.startsWith(SIGNATURE_PREFIX_V2)) return value === (await signatureV2(status, token, body));
  if (value?.startsWith(SIGNATURE_PREFIX)) return value === (await signature(status, token, body));
  return false;
}

/** requestToken makes the random per-request token (32 hex characters). */
export function requestToken(): string {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

export type RequestOptions = {
  method?: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  query?: Record<string, string | number | boolean | undefined | null>;
  /** JSON body. */
  json?: unknown;
  /** form-encoded body (user-get-info is form-encoded). */
  form?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** status codes that count as success besides 200 (interest genres: 201, 204). */
  expect?: number[];
  timeoutMs?: number;
};

export type HttpConfig = {
  channel: () => string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

export type Http = <T = Envelope>(path: string, opts?: RequestOptions) => Promise<T>;

export function createHttp(cfg: HttpConfig): Http {
  return async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const doFetch = cfg.fetch ?? globalThis.fetch.bind(globalThis);
    const token = requestToken();
    const headers: Record<string, string> = {
      Accept: "application/json",
      "X-Channel": cfg.channel(),
      "X-Request-Token": token,
      "X-Signature-Version": SIGNATURE_VERSION,
      "Cache-Control": "no-cache, no-store, must-revalidate",
      Pragma: "no-cache",
      Expires: "0",
      ...opts.headers,
    };
    let body: BodyInit | undefined;
    if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded;charset=UTF-8";
      body = new URLSearchParams(Object.entries(opts.form).map(([k, v]) => [k, String(v)])).toString();
    }
    let url = path;
    if (opts.query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null) q.set(k, String(v));
      const s = q.toString();
      if (s) url += (url.includes("?") ? "&" : "?") + s;
    }

    const timeoutMs = opts.timeoutMs ?? cfg.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, timeoutMs);
    const onAbort = () => ctrl.abort();
    opts.signal?.addEventListener("abort", onAbort);

    const method = opts.method ?? (body ? "POST" : "GET");
    let res: Response;
    let raw: Uint8Array;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body,
        credentials: "same-origin",
        cache: "no-store",
        signal: ctrl.signal,
      });
      raw = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      if (timedOut) throw new HttpError("api", 408, 408, "time out");
      if (opts.signal?.aborted) throw e; // the caller cancelled: not an error to show
      throw new HttpError("network", 0, 0, e instanceof Error ? e.message : "network error");
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }

    // A list the service worker answered from its cache (no network) was
    // signed for the request that fetched it: it is checked against that
    // request's token, which the worker kept beside it (docs/signature.md).
    // Only a GET can be such an answer.
    const signedFor = (method === "GET" && res.headers.get(SIGNED_FOR)) || token;
    if (!(await verifySignature(res.headers.get("Authorization"), res.status, signedFor, raw))) {
      throw new HttpError("forged", res.status, res.status, "forged response");
    }

    const text = new TextDecoder().decode(raw);
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new HttpError("api", res.status, res.status, "invalid answer", text);
      }
    }
    const header = (parsed as Envelope | undefined)?.header;
    const okStatus = res.status === 200 || (opts.expect ?? []).includes(res.status);
    const okCode = header === undefined || header.code === 200 || (opts.expect ?? []).includes(header.code);
    if (!okStatus || !okCode) {
      const code = typeof header?.code === "number" ? header.code : res.status;
      throw new HttpError("api", res.status, code, header?.message || `HTTP ${res.status}`, parsed);
    }
    return parsed as T;
  };
}
