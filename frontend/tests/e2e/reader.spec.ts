// What a reader meets in the first minutes (issues 24 and 25): the interests
// sheet, the release day, Korean and tidy pages, the seed's grid, the detail's
// place kept, the chat's states.
import type { Page } from "@playwright/test";
import { expect, fulfillSigned, signup, test } from "./fixtures";
import { paidWork } from "./members";

/** Two animation frames: what a resolved call sets has been drawn by then. */
const frames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test("the interests sheet names the catalog's genres and never covers the unlock sheet the member opened", async ({ page, request }) => {
  const { detail, vol } = await paidWork(request, "webtoon");
  await signup(page);
  // The sheet's first call is held until the member has opened a sheet of theirs.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/home/api/v1/users/interests/genres/exists", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/webtoon/detail/${detail.prodInfo.pid}?tab=V`);
  await page.locator(`[data-testid=vol][data-no="${vol.no}"]`).click();
  const unlock = page.getByTestId("unlock-sheet");
  await expect(unlock).toBeVisible();

  const names = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/genres"));
  const choices = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/users/interests/genres") && r.request().method() === "GET");
  release();
  await Promise.all([names, choices]);
  await frames(page);
  await expect(page.getByTestId("interests-sheet")).toHaveCount(0);
  await expect(unlock).toBeVisible();

  // Once the member closes theirs, the interests sheet comes, with names.
  await page.goBack();
  await expect(unlock).toHaveCount(0);
  const sheet = page.getByTestId("interests-sheet");
  await expect(sheet).toBeVisible();
  const catalog = (await (await request.get("/home/api/v1/genres")).json()) as { genres: { name: string }[] };
  const chips = sheet.locator("button[aria-pressed]");
  await expect(chips).toHaveText(catalog.genres.map((g) => g.name));
  for (const name of ["무협", "로맨스판타지", "일상", "학원", "스포츠"]) await expect(sheet.getByRole("button", { name, exact: true })).toBeVisible();
  for (const text of await chips.allTextContents()) expect(text).not.toMatch(/^\d+$/);
  // Back closes it, and the page stays.
  await page.goBack();
  await expect(sheet).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${detail.prodInfo.pid}`));
});

test("a product address without a work says so in Korean", async ({ page }) => {
  for (const path of ["/webtoon/detail", "/comic/detail?pid=", "/viewer"]) {
    await page.goto(path);
    const err = page.getByTestId("error-page");
    await expect(err).toHaveAttribute("data-status", "404");
    await expect(err).toContainText("작품을 찾을 수 없습니다.");
    await expect(err).not.toContainText("no product");
  }
});

test("the login error pages keep 다시 로그인하기 in the error block", async ({ page }) => {
  for (const code of [400, 403, 404, 500, 501]) {
    await page.goto(`/nuxgin/error/${code}`);
    const block = page.getByTestId("error-page");
    const again = page.getByRole("link", { name: "다시 로그인하기" });
    await expect(again).toBeVisible();
    const b = (await block.boundingBox())!;
    const a = (await again.boundingBox())!;
    // The link is inside the block, right under its last line (the CS link, or the buttons on a 404).
    expect(a.y).toBeGreaterThanOrEqual(b.y);
    expect(a.y + a.height).toBeLessThanOrEqual(b.y + b.height);
    const last = code === 404 ? block.getByRole("button", { name: "홈으로" }) : block.getByRole("link", { name: "고객센터 문의하기" });
    const l = (await last.boundingBox())!;
    expect(a.y - (l.y + l.height), `gap on ${code}`).toBeLessThan(40);
    await again.click();
    await expect(page).toHaveURL(/\/nuxgin$/);
  }
});

test("the sidebar wraps a long e-mail address before its @, never inside a word", async ({ page }) => {
  const local = `long.reader.${Date.now().toString(36)}`;
  const email = `${local}@example-mailbox.co.kr`;
  await signup(page, email);
  await page.request.post("/home/api/v1/users/interests/genres/rejection");
  await page.goto("/cs");
  await page.getByRole("button", { name: "메뉴 열기" }).click();
  const name = page.getByTestId("sidebar").getByTestId("user-name");
  await expect(name).toHaveText(email);
  const lines = await name.evaluate((el) => {
    // The line tops each part of the address is drawn on.
    const tops = (from: Node, fromOff: number, to: Node, toOff: number) => {
      const r = document.createRange();
      r.setStart(from, fromOff);
      r.setEnd(to, toOff);
      return [...new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)))];
    };
    const texts: Text[] = [];
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) texts.push(walk.currentNode as Text);
    const whole = el.textContent ?? "";
    const i = whole.indexOf("@");
    // Map an offset in the whole text to its text node.
    const pos = (n: number): [Node, number] => {
      for (const t of texts) {
        if (n <= t.length) return [t, n];
        n -= t.length;
      }
      return [texts[texts.length - 1], texts[texts.length - 1].length];
    };
    return {
      all: tops(...pos(0), ...pos(whole.length)).length,
      local: tops(...pos(0), ...pos(i)).length,
      domain: tops(...pos(i), ...pos(whole.length)).length,
    };
  });
  expect(lines.all, "the address is too long for one line here").toBe(2);
  expect(lines.local).toBe(1);
  expect(lines.domain).toBe(1);
});

test("the recently viewed list counts a comic's volumes in 권 and a webtoon's in 화", async ({ page, request }) => {
  type Item = { pid: string; isAdult: boolean };
  const pick = async (area: string, unit: string) => {
    const list = (await (await request.get(`/home/api/v1/${area}/genre/all?size=40&sort=popular`)).json()) as { list: Item[] };
    for (const it of list.list) {
      if (it.isAdult) continue;
      const d = (await (await request.get(`/home/api/v1/products/${it.pid}`)).json()) as { prodInfo: { pid: string; title: string; unit: string } };
      if (d.prodInfo.unit === unit) return d.prodInfo;
    }
    throw new Error(`no ${area} counted in ${unit}`);
  };
  const comic = await pick("comic", "권");
  const webtoon = await pick("webtoon", "화");
  await signup(page);
  await page.request.post("/home/api/v1/users/interests/genres/rejection");
  for (const p of [comic, webtoon]) expect((await page.request.post("/home/api/v1/users/recent", { data: { pid: p.pid, vol: 1 } })).status()).toBe(200);
  await page.goto("/mypages/recent");
  const items = page.getByTestId("recent-item");
  await expect(items.filter({ hasText: comic.title })).toContainText("1권까지 봤어요");
  await expect(items.filter({ hasText: webtoon.title })).toContainText("1화까지 봤어요");
});

test("the product grid keeps three columns of at least 96px on a 720px layout and wider screens", async ({ page }) => {
  for (const width of [360, 720, 1024, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/webtoon/genre/all");
    const items = page.getByTestId("product-item");
    await expect(items.first()).toBeVisible();
    const grid = page.getByRole("list", { name: /웹툰/ });
    expect(await grid.evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(" ").length), `columns at ${width}px`).toBe(3);
    // The first row really holds three works.
    const tops = await items.evaluateAll((els) => els.slice(0, 6).map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(tops.filter((t) => t === tops[0]).length, `first row at ${width}px`).toBe(3);
    expect((await items.first().boundingBox())!.width).toBeGreaterThanOrEqual(96);
  }
});

test("coming back to a detail keeps its tab and marks the volume opened from it", async ({ page, request }) => {
  const { detail, free } = await paidWork(request, "webtoon");
  const pid = detail.prodInfo.pid;
  await page.setViewportSize({ width: 412, height: 500 });
  await page.goto(`/webtoon/detail/${pid}`);
  await expect(page.getByRole("tab", { name: /회차/ })).toBeVisible();
  await page.getByRole("tab", { name: /회차/ }).click();
  await expect(page.getByRole("tab", { name: /회차/ })).toHaveAttribute("aria-selected", "true");
  const vol = page.locator(`[data-testid=vol][data-no="${free.no}"]`);
  await vol.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 40));
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
  await expect.poll(() => placeSaved(page)).toBe(true);
  await vol.click();
  await expect(page).toHaveURL(/\/viewer\?/);
  // A new visit of the work's address (no tab in it), as the viewer's way back or a list makes.
  await page.goto(`/webtoon/detail/${pid}`);
  await expect(page.getByRole("tab", { name: /회차/ })).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/tab=V/);
  // The scroll is restored too (the next tests).
  await expect(page.locator(`[data-testid=vol][data-no="${free.no}"]`)).toHaveAttribute("aria-current", "true");
  // Another work opens on its own first tab at the top.
  const other = (await (await request.get("/home/api/v1/webtoon/genre/all?size=5&sort=popular")).json()).list.find((x: { pid: string }) => x.pid !== pid);
  await page.goto(`/webtoon/detail/${other.pid}`);
  await expect(page.getByRole("tab", { name: "작품 정보" })).toHaveAttribute("aria-selected", "true");
});

test.describe("the chat's states", () => {
  test.use({ allowConsole: [/status of 503/] });
  test("loading while it connects, failed with a retry when the connection fails, then ready", async ({ page }) => {
    await signup(page);
    await page.request.post("/home/api/v1/users/interests/genres/rejection");
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let fail = true;
    await page.route("**/home/api/v1/cs/qna?**", async (route) => {
      if (route.request().method() !== "GET") return route.continue();
      await held;
      if (fail) return fulfillSigned(route, 503, { header: { code: 503, message: "잠시 후 다시 시도해 주세요." } });
      return route.continue();
    });
    await page.goto("/conversation");
    const chat = page.getByTestId("chat");
    await expect(chat).toHaveAttribute("data-state", "loading");
    await expect(chat.getByRole("status")).toHaveText("상담을 연결하고 있습니다.");
    await expect(page.getByRole("textbox", { name: "메시지" })).toBeDisabled();
    release();
    await expect(chat).toHaveAttribute("data-state", "failed");
    await expect(chat.getByRole("status")).toHaveText("상담에 연결하지 못했습니다. 잠시 후 다시 시도해 주세요.");
    await expect(page.getByRole("button", { name: "보내기" })).toBeDisabled();
    fail = false;
    await chat.getByRole("button", { name: "다시 연결" }).click();
    await expect(chat).toHaveAttribute("data-state", "ready");
    await expect(chat).toContainText("안녕하세요, 고객센터입니다. 무엇을 도와드릴까요?");
    const box = page.getByRole("textbox", { name: "메시지" });
    await expect(box).toBeEnabled();
    await box.fill("충전 내역을 확인하고 싶어요");
    await page.getByRole("button", { name: "보내기" }).click();
    await expect(chat).toContainText("충전 내역을 확인하고 싶어요");
  });
});

/** Whether the detail's saved place is where the page is: the scroll past the detail's own top. */
const placeSaved = (page: Page) =>
  page.evaluate(() => {
    const saved = JSON.parse(sessionStorage.getItem("detailContext") ?? "{}").y;
    return saved === Math.round(-document.querySelector("[data-testid=detail]")!.getBoundingClientRect().top);
  });

/** Where the volume is on the screen. */
const onScreen = (page: Page, no: number) => page.locator(`[data-testid=vol][data-no="${no}"]`).evaluate((e) => Math.round(e.getBoundingClientRect().top));

/**
 * Leaves `pid`'s volumes tab scrolled down to a volume and opens it: the
 * detail's place is saved. Answers where the volume was on the screen and how
 * far the page was scrolled.
 */
async function leaveScrolled(page: Page, pid: string, no: number) {
  await page.setViewportSize({ width: 412, height: 500 });
  await page.goto(`/webtoon/detail/${pid}?tab=V`);
  const vol = page.locator(`[data-testid=vol][data-no="${no}"]`);
  await vol.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 40));
  const y = await page.evaluate(() => window.scrollY);
  expect(y).toBeGreaterThan(100);
  await expect.poll(() => placeSaved(page)).toBe(true);
  const at = await onScreen(page, no);
  const saved = await page.evaluate(() => sessionStorage.getItem("detailContext"));
  await vol.click();
  await expect(page).toHaveURL(/\/viewer\?/);
  // The viewer's scroll to its top is not the detail's place.
  await frames(page);
  expect(await page.evaluate(() => sessionStorage.getItem("detailContext"))).toBe(saved);
  return { at, y };
}

/** The page stays at the top once drawn (a restore would have come by then). */
async function staysAtTop(page: Page, wouldReach: number) {
  await expect(page.getByRole("tab", { name: "작품 정보" })).toHaveAttribute("aria-selected", "true");
  // Tall enough to have been put at that place: the check can fail.
  expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeGreaterThanOrEqual(wouldReach);
  for (let i = 0; i < 5; i++) {
    await frames(page);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  }
}

test("coming back to a detail keeps its scroll: a new visit of its address, the viewer's way back, Back", async ({ page, request }) => {
  const { detail, free } = await paidWork(request, "webtoon");
  const pid = detail.prodInfo.pid;
  const { at } = await leaveScrolled(page, pid, free.no);
  // The volume is where the reader left it on the screen, whether or not the
  // top banner above the page has come yet.
  await page.goto(`/webtoon/detail/${pid}`);
  await expect(page).toHaveURL(/tab=V/);
  await expect.poll(() => onScreen(page, free.no)).toBe(at);
  // The viewer's 목록으로 opens the volumes tab of the work.
  await page.locator(`[data-testid=vol][data-no="${free.no}"]`).click();
  await expect(page).toHaveURL(/\/viewer\?/);
  // Its top bar may be hidden while reading: the button is pressed as it is.
  await page.getByRole("button", { name: "목록으로" }).first().dispatchEvent("click");
  await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${pid}\\?tab=V`));
  await expect.poll(() => onScreen(page, free.no)).toBe(at);
  // Back from the viewer.
  await page.locator(`[data-testid=vol][data-no="${free.no}"]`).click();
  await expect(page).toHaveURL(/\/viewer\?/);
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${pid}`));
  await expect.poll(() => onScreen(page, free.no)).toBe(at);
});

test("another work opens on its first tab at the top: from a list, or afresh at its address", async ({ page, request }) => {
  const { detail, free } = await paidWork(request, "webtoon");
  const pid = detail.prodInfo.pid;
  const { y } = await leaveScrolled(page, pid, free.no);
  // Afresh (typed, or opened by the app), after the scrolled work had been
  // opened afresh too: not the router's place of that page.
  const list = (await (await request.get("/home/api/v1/webtoon/genre/all?size=30&sort=popular")).json()).list as { pid: string; isAdult: boolean }[];
  const others = list.filter((x) => x.pid !== pid && !x.isAdult);
  await page.goto(`/webtoon/detail/${others[0].pid}`);
  await staysAtTop(page, y);
  // From a list the reader scrolled.
  await page.goto("/webtoon/genre");
  const links = page.locator(`[data-testid=product-item] a[href*="/detail/"]:not([href*="/detail/${pid}"])`);
  const link = links.nth(8);
  await link.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 200));
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
  const href = (await link.getAttribute("href"))!;
  await link.click();
  await expect(page).toHaveURL(new RegExp(href.replace(/[?]/g, "\\?")));
  await staysAtTop(page, y);
});

test("Back to a work left for a related one comes back at its place", async ({ page, request }) => {
  const { detail } = await paidWork(request, "webtoon");
  const pid = detail.prodInfo.pid;
  await page.setViewportSize({ width: 412, height: 500 });
  await page.goto(`/webtoon/detail/${pid}`);
  const related = page.locator(`[data-testid=detail] [data-testid=product-item] a[href*="/detail/"]:not([href*="/detail/${pid}"])`).first();
  await related.scrollIntoViewIfNeeded();
  const at = await related.evaluate((e) => Math.round(e.getBoundingClientRect().top));
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
  await expect.poll(() => placeSaved(page)).toBe(true);
  const href = (await related.getAttribute("href"))!;
  await related.click();
  await expect(page).toHaveURL(new RegExp(href.replace(/[?]/g, "\\?")));
  await staysAtTop(page, at);
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/webtoon/detail/${pid}$`));
  await expect.poll(() => page.locator(`[data-testid=detail] a[href="${href}"]`).first().evaluate((e) => Math.round(e.getBoundingClientRect().top))).toBe(at);
});
