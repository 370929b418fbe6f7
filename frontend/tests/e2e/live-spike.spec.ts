// The live release view during a real k6 release spike (issue 21): the load
// test's release-spike scenario runs against this store for about 20 s, on a
// release work of its own that loadtest/prepare.sh makes (its new volume
// released a few seconds in), while an analyst watches /admin/analytics/live.
// The view's figures rise with k6's readers without a reload, equal k6's own
// counts of the tracking events the edge accepted once k6 stopped, and its
// readers per second fall back afterwards.
//
// k6 is the project's (scripts/setup.sh builds it into bin/k6; K6 overrides):
// without it this test fails, saying so, instead of skipping.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "@playwright/test";
import { becomeAnalyst } from "./analyst";
import { expect, test } from "./fixtures";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const K6 = process.env.K6 ?? path.join(ROOT, "bin/k6");
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
/** k6's smoke shape (loadtest/lib/profiles.js): 2 readers/s for 3 s, up to 5/s in 3 s, held this long. */
const HOLD = "15s";
/** Each reader sends three readers' events (weekday page view, detail view, viewer page view). */
const EVENTS_PER_READER = 3;
/** The seconds before the new volume is out, counted from the start of prepare.sh. */
const LEAD_S = 10;

type Summary = {
  metrics: Record<string, { values: { count?: number } } | undefined>;
};

const number = async (page: Page, testId: string) => Number(((await page.getByTestId(testId).textContent()) ?? "").replace(/,/g, ""));
const cellNumber = async (page: Page, row: string, cell: number) =>
  Number(
    (
      (await page
        .getByTestId("live-works-table")
        .getByRole("row", { name: new RegExp(row) })
        .getByRole("cell")
        .nth(cell)
        .textContent()) ?? ""
    ).replace(/,/g, ""),
  );

test("a k6 release spike shows in the live view while it runs, with k6's own counts, and the view falls back when it stops", async ({
  page,
  baseURL,
}, testInfo) => {
  expect(existsSync(K6), `k6 is not at ${K6}: scripts/setup.sh builds it (loadtest/install-k6.sh)`).toBe(true);
  const env = { ...process.env, BASE_URL: baseURL!, ADMIN_TOKEN };
  const run = `e2e${Date.now().toString(36)}`;

  // The release work: created, its pages processed and served by the edge.
  const prepared = await promisify(execFile)(path.join(ROOT, "loadtest/prepare.sh"), [String(LEAD_S), run], { env, timeout: 120_000 });
  const release = Object.fromEntries(
    prepared.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  );
  const pid = release.RELEASE_PID;
  expect(pid, prepared.stdout + prepared.stderr).toMatch(/^lt/);

  await becomeAnalyst(page.request);
  await page.goto("/admin/analytics/live?minutes=5");
  await expect(page.getByRole("heading", { name: "실시간 공개 현황", level: 1 })).toBeVisible();
  await expect(page.getByTestId("live-works-table").getByRole("row", { name: new RegExp(pid) })).toHaveCount(0);

  // k6 writes its summary there (handleSummary) but makes no folder.
  const results = testInfo.outputPath("k6");
  await mkdir(results, { recursive: true });
  const args = ["run", "--quiet", "--no-usage-report", "-e", "PROFILE=smoke", "-e", `HOLD=${HOLD}`, "-e", `RUN_ID=${run}`, "-e", `RESULTS_DIR=${results}`];
  for (const k of ["RELEASE_PID", "RELEASE_VOL", "RELEASE_AT", "COUPON_EID"]) args.push("-e", `${k}=${release[k]}`);
  args.push(path.join(ROOT, "loadtest/scenarios/release-spike.js"));
  const k6 = spawn(K6, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  k6.stdout.on("data", (b: Buffer) => (output += b.toString()));
  k6.stderr.on("data", (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((resolve) => k6.on("exit", resolve));
  let running = true;
  void exited.then(() => (running = false));
  try {
    // While k6 runs the work appears and its detail views grow by themselves
    // (the screen refreshes every 3 s; no reload here).
    const row = page.getByTestId("live-works-table").getByRole("row", { name: new RegExp(pid) });
    await expect(row).toBeVisible({ timeout: 30_000 });
    const first = await cellNumber(page, pid, 0);
    await expect.poll(() => cellNumber(page, pid, 0), { timeout: 20_000 }).toBeGreaterThan(first);
    // Readers per second reach k6's baseline (2 readers/s, three events each)
    // while k6 is still running.
    let peak = 0;
    await expect
      .poll(
        async () => {
          peak = Math.max(peak, await number(page, "live-rate"));
          return peak;
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(2 * EVENTS_PER_READER);
    expect(running, "k6 stopped before the live view showed its readers").toBe(true);
    const code = await exited;
    expect(code, output).toBe(0);

    // k6's own counts of what the edge accepted.
    const summary = JSON.parse(await readFile(path.join(results, "release-spike.json"), "utf8")) as Summary;
    const got = (m: string) => summary.metrics[m]?.values.count ?? 0;
    const views = got("tracked_detail_views");
    const opens = got("tracked_viewer_opens");
    const newOpens = got("tracked_new_volume_opens");
    expect(got("tracking_refused"), output).toBe(0);
    expect(views, output).toBeGreaterThan(20);
    expect(newOpens, output).toBeGreaterThan(0);

    // Once ingested, the work's row holds exactly k6's detail views and
    // viewer opens (the work is this run's alone), the new volume is marked
    // new with k6's opens of it, and the totals hold at least k6's events.
    await expect.poll(() => cellNumber(page, pid, 0), { timeout: 30_000 }).toBe(views);
    await expect.poll(() => cellNumber(page, pid, 1), { timeout: 30_000 }).toBe(opens);
    const volume = page.getByTestId("live-volumes-table").getByRole("row", {
      name: new RegExp(`${pid} · ${release.RELEASE_VOL}화`),
    });
    await expect(volume).toContainText("신규");
    await expect(volume.getByRole("cell")).toHaveText(newOpens.toLocaleString("ko-KR"));
    expect(await number(page, "live-new-opens")).toBeGreaterThanOrEqual(newOpens);
    expect(await number(page, "live-readers")).toBeGreaterThanOrEqual(views * EVENTS_PER_READER);

    // k6 stopped: readers per second fall back below half the peak the view showed.
    await expect.poll(() => number(page, "live-rate"), { timeout: 30_000 }).toBeLessThan(peak / 2);
  } finally {
    if (running) k6.kill("SIGTERM");
  }
});
