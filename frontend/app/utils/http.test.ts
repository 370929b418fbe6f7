import { afterEach, describe, expect, it, vi } from "vitest";
import { createHttp, HttpError, REQUEST_TIMEOUT_MS, requestToken, signature, signatureV2 } from "./http";
import { sha256Fallback } from "./sha256Fallback";

const enc = (s: string) => new TextEncoder().encode(s);
const OK_BODY = '{"header":{"code":200,"message":""}}';
// sha256(b'200\nabc\n' + OK_BODY), computed outside JavaScript (Python hashlib).
const OK_SIG = "SFS1 2a7fdc15543201f8bf32050772a0a34c28f68180085066376ab0238a9565c189";
// sha256(hex(sha256(OK_BODY)) + '\n200\nabc'), Python hashlib (contract/signature_test.go).
const OK_SIG2 = "SFS2 14ad78488de0b809124bfc98cf29180e52a6367d2aededd4b54e4e71b1955639";

/** signed answers as the edge does: SFS2 when the request asks for it. */
async function signed(status: number, token: string, body: string, req?: Request) {
  const v2 = req?.headers.get("X-Signature-Version") === "2";
  return new Response(body === "" ? null : body, {
    status,
    headers: { Authorization: await (v2 ? signatureV2 : signature)(status, token, enc(body)) },
  });
}

/** A fake server: answers what `answer` makes of the request. */
function server(answer: (req: Request, token: string) => Promise<Response> | Response) {
  const calls: Request[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(new URL(String(input), "http://localhost"), init);
    calls.push(req);
    return answer(req, req.headers.get("X-Request-Token") ?? "");
  }) as typeof fetch;
  return { calls, fetchImpl };
}

afterEach(() => vi.useRealTimers());

describe("signature", () => {
  it("is SFS1 + hex SHA-256 of status, token and body", async () => {
    expect(await signature(200, "abc", enc(OK_BODY))).toBe(OK_SIG);
  });
  it("has a pure fallback equal to crypto.subtle", async () => {
    const data = enc("200\nabc\n" + OK_BODY);
    const hex = Array.from(sha256Fallback(data), (b) => b.toString(16).padStart(2, "0")).join("");
    expect("SFS1 " + hex).toBe(OK_SIG);
    // empty input and a multi-block input
    const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(0)));
    expect(sha256Fallback(new Uint8Array(0))).toEqual(d);
    const big = enc("가".repeat(500));
    expect(sha256Fallback(big)).toEqual(new Uint8Array(await crypto.subtle.digest("SHA-256", big)));
  });
  it("SFS2 is hex SHA-256 of the body's hex digest, status and token", async () => {
    expect(await signatureV2(200, "abc", enc(OK_BODY))).toBe(OK_SIG2);
  });
  it("both versions are right without Web Crypto (pages over plain http)", async () => {
    const big = enc(`{"header":{"code":200,"message":""},"list":"${"가".repeat(3000)}"}`);
    const want1 = await signature(200, "t", big);
    const want2 = await signatureV2(200, "t", big);
    const real = globalThis.crypto;
    vi.stubGlobal("crypto", { getRandomValues: real.getRandomValues.bind(real) });
    try {
      expect(globalThis.crypto.subtle).toBeUndefined();
      expect(await signatureV2(200, "abc", enc(OK_BODY))).toBe(OK_SIG2);
      expect(await signature(200, "abc", enc(OK_BODY))).toBe(OK_SIG);
      expect(await signature(200, "t", big)).toBe(want1);
      expect(await signatureV2(200, "t", big)).toBe(want2);
      // the whole helper: asks for SFS2 and verifies it with the fallback
      const srv = server((r, t) => signed(200, t, OK_BODY, r));
      const http = createHttp({ channel: () => "AW", fetch: srv.fetchImpl });
      await expect(http("/x")).resolves.toMatchObject({ header: { code: 200 } });
    } finally {
      vi.unstubAllGlobals();
    }
  });
  it("request tokens are random 32-hex strings", () => {
    const a = requestToken();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(requestToken()).not.toBe(a);
  });
});

describe("createHttp", () => {
  it("sends the channel, a fresh token and cache-disabling headers", async () => {
    const srv = server((_r, t) => signed(200, t, OK_BODY));
    const http = createHttp({ channel: () => "IW", fetch: srv.fetchImpl });
    await http("/home/api/v1/home", { query: { section: "all", skip: undefined } });
    await http("/x");
    const [a, b] = srv.calls;
    expect(new URL(a.url).pathname + new URL(a.url).search).toBe("/home/api/v1/home?section=all");
    expect(a.headers.get("X-Channel")).toBe("IW");
    expect(a.headers.get("X-Request-Token")).toMatch(/^[0-9a-f]{32}$/);
    expect(a.headers.get("X-Request-Token")).not.toBe(b.headers.get("X-Request-Token"));
    expect(a.headers.get("Cache-Control")).toContain("no-cache");
    expect(a.headers.get("Pragma")).toBe("no-cache");
    expect(a.headers.get("Expires")).toBe("0");
    expect(a.headers.get("X-Signature-Version")).toBe("2");
  });

  it("verifies SFS2 answers and still SFS1 ones (a server not updated yet)", async () => {
    const v2 = server((r, t) => signed(200, t, '{"header":{"code":200,"message":""},"n":2}', r));
    await expect(createHttp({ channel: () => "AW", fetch: v2.fetchImpl })<{ n: number }>("/x")).resolves.toMatchObject({ n: 2 });
    expect((await v2.fetchImpl("/y", { headers: { "X-Signature-Version": "2" } })).headers.get("Authorization")).toMatch(/^SFS2 /);
    const v1 = server((_r, t) => signed(200, t, '{"header":{"code":200,"message":""},"n":1}'));
    await expect(createHttp({ channel: () => "AW", fetch: v1.fetchImpl })<{ n: number }>("/x")).resolves.toMatchObject({ n: 1 });
  });

  it("rejects an SFS2 answer whose body, token or status was changed", async () => {
    for (const change of ["body", "token", "status", "prefix"] as const) {
      const srv = server(async (r, t) => {
        const sig = await signatureV2(change === "status" ? 201 : 200, change === "token" ? t + "x" : t, enc(OK_BODY));
        const body = change === "body" ? '{"header":{"code":200,"message":"evil"}}' : OK_BODY;
        return new Response(body, { status: 200, headers: { Authorization: change === "prefix" ? sig.replace("SFS2", "SFS1") : sig } });
      });
      const err = await createHttp({ channel: () => "AW", fetch: srv.fetchImpl })("/x").catch((e) => e);
      expect(err?.kind, change).toBe("forged");
    }
  });

  it("returns the parsed answer when the signature matches", async () => {
    const srv = server((_r, t) => signed(200, t, '{"header":{"code":200,"message":""},"n":1}'));
    const http = createHttp({ channel: () => "AW", fetch: srv.fetchImpl });
    await expect(http<{ n: number }>("/x")).resolves.toMatchObject({ n: 1 });
  });

  it("sends JSON and form bodies", async () => {
    const srv = server((_r, t) => signed(200, t, OK_BODY));
    const http = createHttp({ channel: () => "AW", fetch: srv.fetchImpl });
    await http("/j", { json: { a: 1 } });
    await http("/f", { form: { uid: "u1", nai: 19 } });
    expect(srv.calls[0].method).toBe("POST");
    expect(srv.calls[0].headers.get("Content-Type")).toBe("application/json");
    expect(await srv.calls[0].text()).toBe('{"a":1}');
    expect(srv.calls[1].headers.get("Content-Type")).toContain("application/x-www-form-urlencoded");
    expect(await srv.calls[1].text()).toBe("uid=u1&nai=19");
  });

  it("rejects a tampered body as a forged response", async () => {
    const srv = server(async (_r, t) => {
      const good = await signed(200, t, OK_BODY);
      return new Response('{"header":{"code":200,"message":"evil"}}', { status: 200, headers: good.headers });
    });
    const http = createHttp({ channel: () => "AW", fetch: srv.fetchImpl });
    const err = await http("/x").catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.kind).toBe("forged");
    expect(err.name).toBe("ForgedResponseError");
  });

  it("rejects a missing signature and a signature for another status", async () => {
    const http1 = createHttp({ channel: () => "AW", fetch: server(() => new Response(OK_BODY)).fetchImpl });
    expect((await http1("/x").catch((e) => e)).kind).toBe("forged");
    const srv = server(async (_r, t) => {
      const sig = await signature(200, t, enc(OK_BODY));
      return new Response(OK_BODY, { status: 201, headers: { Authorization: sig } });
    });
    const http2 = createHttp({ channel: () => "AW", fetch: srv.fetchImpl });
    expect((await http2("/x", { expect: [201] }).catch((e) => e)).kind).toBe("forged");
  });

  it("an error answer is an API error with the header's code and message", async () => {
    const body = '{"header":{"code":404,"message":"no such work"}}';
    const http = createHttp({ channel: () => "AW", fetch: server((_r, t) => signed(404, t, body)).fetchImpl });
    const err = await http("/x").catch((e) => e);
    expect(err).toMatchObject({ kind: "api", status: 404, code: 404, message: "no such work", name: "ApiError" });
  });

  it("a 200 whose header code is not 200 fails the success check", async () => {
    const body = '{"header":{"code":201,"message":"service off"}}';
    const http = createHttp({ channel: () => "AW", fetch: server((_r, t) => signed(200, t, body)).fetchImpl });
    expect(await http("/x").catch((e) => e)).toMatchObject({ kind: "api", status: 200, code: 201 });
    await expect(http("/x", { expect: [201] })).resolves.toMatchObject({ header: { code: 201 } });
  });

  it("accepts expected statuses such as 204 with an empty body", async () => {
    const http = createHttp({ channel: () => "AW", fetch: server((_r, t) => signed(204, t, "")).fetchImpl });
    await expect(http("/x", { method: "POST", expect: [204] })).resolves.toBeUndefined();
    expect((await http("/x", { method: "POST" }).catch((e) => e)).kind).toBe("api");
  });

  it("no answer is a network error", async () => {
    const http = createHttp({
      channel: () => "AW",
      fetch: (async () => {
        throw new TypeError("Failed to fetch");
      }) as typeof fetch,
    });
    expect(await http("/x").catch((e) => e)).toMatchObject({ kind: "network", status: 0, name: "NetworkError" });
  });

  it("times out after 50 s with 408 'time out'", async () => {
    vi.useFakeTimers();
    const never = ((_i: RequestInfo | URL, init?: RequestInit) =>
      new Promise((_res, rej) => init?.signal?.addEventListener("abort", () => rej(new DOMException("aborted", "AbortError"))))) as typeof fetch;
    const http = createHttp({ channel: () => "AW", fetch: never });
    const p = http("/x").catch((e) => e);
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    let settled = false;
    void p.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toMatchObject({ kind: "api", status: 408, message: "time out" });
    expect(REQUEST_TIMEOUT_MS).toBe(50_000);
  });

  it("a caller's cancel is passed through, not turned into an error page", async () => {
    const ctrl = new AbortController();
    const never = ((_i: RequestInfo | URL, init?: RequestInit) =>
      new Promise((_res, rej) => init?.signal?.addEventListener("abort", () => rej(new DOMException("aborted", "AbortError"))))) as typeof fetch;
    const http = createHttp({ channel: () => "AW", fetch: never });
    const p = http("/x", { signal: ctrl.signal }).catch((e) => e);
    ctrl.abort();
    const err = await p;
    expect(err).not.toBeInstanceOf(HttpError);
    expect(err.name).toBe("AbortError");
  });
});
