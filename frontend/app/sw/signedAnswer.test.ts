import { describe, expect, it } from "vitest";
import { createHttp, signatureV2 } from "~/utils/http";
import { CACHED_AT, keepSigned, SIGNED_FOR } from "./signedAnswer";

const BODY = '{"header":{"code":200,"message":""},"list":[1,2,3]}';
const enc = (s: string) => new TextEncoder().encode(s);

/** What the edge answers a request: the body signed SFS2 for its token. */
async function edgeAnswer(req: Request, body = BODY, status = 200) {
  const token = req.headers.get("X-Request-Token") ?? "";
  return new Response(body, { status, headers: { Authorization: await signatureV2(status, token, enc(body)), "Content-Encoding": "br", "Content-Length": "9" } });
}

/**
 * A page whose fetch goes through a worker holding `cached` (what keepSigned
 * stored): the network is down, the worker answers the copy.
 */
function offlinePage(cached: Response) {
  const seen: Request[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(new URL(String(input), "http://localhost"), init));
    return cached.clone();
  }) as typeof fetch;
  return { http: createHttp({ channel: () => "AW", fetch: fetchImpl }), seen };
}

async function cachedCopy(body = BODY) {
  const first = new Request("http://localhost/home/api/v1/home", { headers: { "X-Request-Token": "first-token" } });
  const kept = await keepSigned(first, await edgeAnswer(first, body), 1234);
  return kept!;
}

describe("a list answer kept by the service worker", () => {
  it("keeps the token it was signed for and the time, drops the wire's encoding", async () => {
    const kept = await cachedCopy();
    expect(kept.headers.get(SIGNED_FOR)).toBe("first-token");
    expect(kept.headers.get(CACHED_AT)).toBe("1234");
    expect(kept.headers.get("Content-Encoding")).toBeNull();
    expect(kept.headers.get("Content-Length")).toBeNull();
    expect(await kept.text()).toBe(BODY);
  });

  it("keeps only signed 200s: an error or an unsigned answer is no list to show later", async () => {
    const req = new Request("http://localhost/home/api/v1/home", { headers: { "X-Request-Token": "t" } });
    expect(await keepSigned(req, await edgeAnswer(req, '{"header":{"code":500,"message":"x"}}', 500))).toBeNull();
    expect(await keepSigned(req, new Response(BODY))).toBeNull();
    expect(await keepSigned(new Request("http://localhost/home/api/v1/home"), await edgeAnswer(req))).toBeNull();
  });

  it("verifies on a later request with another token: checked against the token it was signed for", async () => {
    const { http, seen } = offlinePage(await cachedCopy());
    await expect(http<{ list: number[] }>("/home/api/v1/home")).resolves.toMatchObject({ list: [1, 2, 3] });
    expect(seen[0].headers.get("X-Request-Token")).not.toBe("first-token");
  });

  it("a cached body that was changed is still a forged answer", async () => {
    const kept = await cachedCopy();
    const changed = new Response(BODY.replace("[1,2,3]", "[9]"), { status: 200, headers: kept.headers });
    const err = await offlinePage(changed).http("/home/api/v1/home").catch((e) => e);
    expect(err.kind).toBe("forged");
  });

  it("only a GET may be answered from the cache: the same answer to a POST is forged", async () => {
    const err = await offlinePage(await cachedCopy()).http("/home/api/v1/home", { method: "POST", json: {} }).catch((e) => e);
    expect(err.kind).toBe("forged");
  });
});
