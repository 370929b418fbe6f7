import { expect, test } from "./fixtures";

declare global {
  interface Window {
    __beaconUrls: string[];
    __beaconBodies: string[];
  }
}

test("queued page views leave by sendBeacon when the page hides; product detail is not counted", async ({ page }) => {
  // Record which batches left by sendBeacon (the real call still happens).
  await page.addInitScript(() => {
    window.__beaconUrls = [];
    window.__beaconBodies = [];
    const orig = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url: string | URL, data?: BodyInit | null) => {
      window.__beaconUrls.push(String(url));
      if (data instanceof Blob) void data.text().then((t) => window.__beaconBodies.push(t));
      return orig(url, data);
    };
  });
  const bodies: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/home/api/v1/tracking/events") && r.method() === "POST") bodies.push(r.postData() ?? "");
  });
  // Time stands still, so the 5 s batch timer cannot fire before the page hides.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await page.goto("/");
  await page.getByTestId("product-item").first().getByRole("link").click();
  await expect(page).toHaveURL(/\/detail\//);
  await page.goBack();
  await expect(page).toHaveURL(/\/$/);
  await page.locator('a[href="/keyword"]').first().click();
  await expect(page).toHaveURL(/\/keyword$/);
  // Hide the page: what is still queued leaves by sendBeacon.
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  const urls = async () => [...bodies.filter((b) => b !== ""), ...(await page.evaluate(() => window.__beaconBodies))].flatMap((b) => (JSON.parse(b) as { events: { type: string; url: string }[] }).events.map((e) => `${e.type} ${e.url}`));
  await expect.poll(urls).toEqual(["page_view /", "page_view /", "page_view /keyword"]);
  expect(await page.evaluate(() => window.__beaconUrls)).toEqual(["/home/api/v1/tracking/events"]);
  // The beacon really went out to the edge.
  await expect.poll(() => bodies.length).toBe(1);
});

test("page views go out in a batch after 5 s without a page hide", async ({ page }) => {
  const bodies: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/home/api/v1/tracking/events") && r.method() === "POST") bodies.push(r.postData() ?? "");
  });
  const answered = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/tracking/events"));
  await page.goto("/cs");
  expect((await answered).status()).toBe(200);
  const events = bodies.flatMap((b) => (JSON.parse(b) as { events: { url: string }[] }).events.map((e) => e.url));
  expect(events[0]).toBe("/cs");
});
