// The admin work editor (/admin/works/:pid, issue 31/32) against the real
// stack: a content manager signs in as staff, is refused a bad early price
// before anything is sent, sells a work's next scheduled episode early, and a
// visitor sees it on the work's detail; turned off, it goes away again.
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { createOperator, createStaff, signInOnPage, staffAPI } from "./staff";

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const PRICE = 300;

type Vol = { no: number; title: string; buyInfo: { price: number } };
type Detail = { header: { code: number }; prodInfo: { pid: string; title: string; age: number; nextReleaseAt?: string; isSpecialPriceSet: boolean }; earlyList?: Vol[] };

const json = async <T>(req: APIRequestContext, url: string): Promise<T> => {
  const res = await req.get(url);
  expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
  return (await res.json()) as T;
};

/**
 * A non-adult webtoon of the demo catalog with an episode scheduled ahead,
 * from the end of the list: early.spec.ts takes the first, and the two may
 * run at the same time.
 */
async function scheduledWork(req: APIRequestContext): Promise<Detail> {
  const list = await json<{ list: { pid: string; isAdult: boolean }[] }>(req, "/home/api/v1/webtoon/genre/all?size=60&sort=popular");
  for (const it of [...list.list].reverse()) {
    if (it.isAdult) continue;
    const d = await json<Detail>(req, `/home/api/v1/products/${it.pid}`);
    if (d.header.code === 200 && d.prodInfo.age < 19 && !d.prodInfo.isSpecialPriceSet && d.prodInfo.nextReleaseAt && !d.earlyList?.length) return d;
  }
  throw new Error("no webtoon with a scheduled episode in the demo catalog");
}

// The screen asks for the staff session before signing in: the writer answers 401.
test.use({ allowConsole: [/\/admin\/works\/.*status of 401/] });

let pid = "";
test.afterAll(async ({ request }) => {
  // Other specs read the demo catalog: sell nothing early any more, even when the test failed half-way.
  if (pid) await request.patch(`/admin/api/v1/works/${pid}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, data: { earlyCount: 0, earlyPrice: 0 } });
});

test("a content manager sets a work's 미리보기 on /admin/works/:pid and a visitor sees it on the detail", async ({ page, request, baseURL, browser }) => {
  test.setTimeout(120_000);
  const d = await scheduledWork(request);
  pid = d.prodInfo.pid;
  const patches: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "PATCH" && r.url().includes("/admin/api/v1/works/")) patches.push(r.postData() ?? "");
  });

  await page.goto(`/admin/works/${pid}`);
  const op = await staffAPI(baseURL!, createOperator());
  await signInOnPage(page, await createStaff(op, "content"));
  await op.dispose();
  await expect(page.getByRole("heading", { name: d.prodInfo.title })).toBeVisible();
  await expect(page.getByTestId("early-current")).toHaveText("사용 안 함");

  const count = page.getByLabel("미리보기 회차 수");
  const price = page.getByLabel("미리보기 가격(원)");
  const save = page.getByRole("button", { name: "미리보기 저장" });
  // Not a multiple of 100: refused on the page, nothing sent.
  await count.fill("1");
  await price.fill("250");
  await save.click();
  await expect(page.getByRole("alert")).toContainText("100원 단위");
  await expect(price).toHaveAttribute("aria-invalid", "true");
  expect(patches).toEqual([]);
  // The editor with a refusal on it: labelled fields, nothing serious for axe.
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  await price.fill(String(PRICE));
  await save.click();
  await expect(page.getByRole("status")).toContainText("저장했습니다");
  await expect(page.getByTestId("early-current")).toHaveText(`1회차 · 회차당 ${PRICE}원`);
  expect(patches.map((b) => JSON.parse(b))).toEqual([{ earlyCount: 1, earlyPrice: PRICE }]);

  // The edge hears of it through the catalog bucket; a visitor sees it.
  let early: Vol | undefined;
  await expect
    .poll(async () => {
      early = (await json<Detail>(request, `/home/api/v1/products/${pid}`)).earlyList?.[0];
      return early?.buyInfo.price;
    })
    .toBe(PRICE);
  const visitorCtx = await browser.newContext();
  const visitor = await visitorCtx.newPage();
  await visitor.goto(`/webtoon/detail/${pid}?tab=V`);
  const row = visitor.locator(`[data-testid=early-vol][data-no="${early!.no}"]`);
  await expect(row).toContainText("미리보기");
  await expect(row.getByTestId("early-state")).toHaveText(`소장 ${PRICE}원`);

  // Turned off: count 0 sends price 0 with it, and the detail drops the list.
  await count.fill("0");
  await save.click();
  await expect(page.getByTestId("early-current")).toHaveText("사용 안 함");
  expect(JSON.parse(patches.at(-1)!)).toEqual({ earlyCount: 0, earlyPrice: 0 });
  await expect.poll(async () => (await json<Detail>(request, `/home/api/v1/products/${pid}`)).earlyList?.length ?? 0).toBe(0);
  await visitor.reload();
  await expect(visitor.getByRole("list", { name: "회차 목록" })).toBeVisible();
  await expect(visitor.getByTestId("early-list")).toHaveCount(0);
  await visitorCtx.close();
});
