import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Accessibility (issue 19 item 4): axe-core on the pages a reader lands on,
// in both themes, failing on serious and critical findings (colour contrast,
// names of buttons and links, labels, image alternatives, landmarks...).
// Each page is checked once the app has drawn its own screen (the edge's
// first-screen drawing is gone), with the sidebar closed.

type Work = { pid: string; isAdult: boolean };
type Detail = { volList?: { no: number; previewPages?: number; isFree?: boolean }[] };

async function landings(page: Page) {
  const list = (await (await page.request.get("/home/api/v1/webtoon/genre/all?size=12&sort=popular")).json()).list as Work[];
  const work = list.find((w) => !w.isAdult);
  expect(work, "a webtoon a visitor may see").toBeTruthy();
  const d = (await (await page.request.get(`/home/api/v1/products/${work!.pid}`)).json()) as Detail;
  const vol = (d.volList ?? []).find((v) => (v.previewPages ?? 0) > 0 || v.isFree) ?? d.volList?.[0];
  expect(vol, "a volume to read").toBeTruthy();
  return [
    { name: "home", path: "/", ready: (p: Page): Locator => p.getByRole("region", { name: "배너" }).getByRole("img").first() },
    { name: "genre list", path: "/webtoon/genre", ready: (p: Page) => p.getByTestId("product-item").first() },
    { name: "detail", path: `/webtoon/detail/${work!.pid}`, ready: (p: Page) => p.locator("main header img").first() },
    { name: "viewer", path: `/viewer?pid=${work!.pid}&no=${vol!.no}`, ready: (p: Page) => p.getByTestId("page").first() },
    { name: "login", path: "/nuxgin", ready: (p: Page) => p.getByRole("button", { name: "이메일로 로그인" }) },
  ];
}

for (const theme of ["light", "dark"] as const) {
  test(`axe finds nothing serious or critical on the landing pages (${theme} theme)`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    const found: string[] = [];
    for (const l of await landings(page)) {
      await page.goto(l.path);
      await expect(l.ready(page), `${l.name}: the app's own screen`).toBeVisible();
      await expect(page.locator("sf-first"), `${l.name}: the edge's drawing is gone`).toHaveCount(0);
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      const { violations } = await new AxeBuilder({ page }).analyze();
      for (const v of violations) {
        if (v.impact !== "serious" && v.impact !== "critical") continue;
        const where = v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`);
        found.push(`${l.name} (${l.path}) ${v.impact} ${v.id}: ${v.help} [${v.nodes.length}]\n    ${where.join("\n    ")}`);
      }
    }
    expect(found, found.join("\n")).toEqual([]);
  });
}
