import { get } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { expect, test } from "./fixtures";

/** GETs url with node:http, which (unlike fetch) hands over the bytes as sent. */
function wireGet(url: string, encoding: string): Promise<{ enc?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { "Accept-Encoding": encoding } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ enc: res.headers["content-encoding"], body: Buffer.concat(parts) }));
      res.on("error", reject);
    }).on("error", reject);
  });
}

// The edge serves the build's own .br/.gz siblings (scripts/precompress.mjs,
// run by `npm run build`): every script and stylesheet the home page loads
// arrives compressed, immutable, and decompresses to the raw file.

test("the build's scripts and styles are served precompressed and immutable", async ({ request }) => {
  const html = await (await request.get("/")).text();
  // A drawn page (edge/server/pages.go) names its modules in sf-boot's
  // data-modules instead of modulepreload links; React Router's stylesheet
  // link ends in "#".
  const linked = [...html.matchAll(/(?:src|href)="(\/assets\/[^"#]+\.(?:js|css))#?"/g)].map((m) => m[1]);
  const boot = html.match(/data-modules="([^"]*)"/)?.[1].split(" ").filter((m) => m.startsWith("/assets/")) ?? [];
  const assets = [...new Set([...linked, ...boot])];
  expect(assets.length, "assets linked from index.html").toBeGreaterThan(0);
  for (const a of assets) {
    const raw = await request.get(a, { headers: { "Accept-Encoding": "identity" } });
    expect(raw.status(), a).toBe(200);
    expect(raw.headers()["content-encoding"], `${a} without Accept-Encoding`).toBeUndefined();
    expect(raw.headers()["cache-control"], a).toContain("immutable");
    const body = await raw.body();
    if (body.length < 1024) continue; // too small to be worth compressing

    // Playwright's request context would decode the body itself: ask for the
    // bytes as they travel and decode them here.
    for (const [enc, decode] of [["br", brotliDecompressSync], ["gzip", gunzipSync]] as const) {
      const res = await wireGet(new URL(a, test.info().project.use.baseURL).toString(), enc);
      expect(res.enc, `${a} with Accept-Encoding ${enc}`).toBe(enc);
      const wire = res.body;
      expect(wire.length, `${a} ${enc} smaller than raw`).toBeLessThan(body.length);
      expect(decode(wire).equals(body), `${a} ${enc} decodes to the raw file`).toBe(true);
    }
  }
});
