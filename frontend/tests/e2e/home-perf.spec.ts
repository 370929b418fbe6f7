import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { expect, test } from "./fixtures";

// The home route's initial JavaScript (gzip, budget 150 KB) and the time to
// the first product grid on a throttled mobile profile (Slow 4G: 1.6 Mbps
// down, 750 kbps up, 150 ms RTT; CPU 4x slower). Numbers go to
// test-results/screens/perf.json and frontend/README.md.
test("home: initial JS within budget and time to first product grid", async ({ page }) => {
  test.setTimeout(120_000);
  const js = new Set<string>();
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith(".js")) js.add(u.pathname);
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 });
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const t0 = Date.now();
  await page.goto("/", { waitUntil: "commit" });
  await expect(page.getByTestId("product-item").first().locator("img")).toBeVisible({ timeout: 60_000 });
  const firstGridMs = Date.now() - t0;
  await page.waitForLoadState("networkidle");
  let gz = 0;
  let raw = 0;
  for (const p of js) {
    const buf = readFileSync(`build/client${p}`);
    raw += buf.length;
    gz += gzipSync(buf, { level: 9 }).length;
  }
  mkdirSync("test-results/screens", { recursive: true });
  const out = { jsFiles: js.size, jsRawKB: +(raw / 1024).toFixed(1), jsGzipKB: +(gz / 1024).toFixed(1), firstGridMs, profile: "Slow 4G 1.6Mbps/150ms RTT, CPU x4" };
  writeFileSync("test-results/screens/perf.json", JSON.stringify(out, null, 2));
  console.log(JSON.stringify(out));
  expect(gz / 1024).toBeLessThan(150);
});
