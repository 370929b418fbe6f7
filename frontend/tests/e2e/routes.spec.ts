import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member } from "./members";

/**
 * Every image of the screen loads: lazy ones below the fold too (they are
 * switched to eager here), so a broken address anywhere on the page shows.
 * A failed load is also a console error, which the fixture fails on.
 */
async function noBrokenImages(page: Page, where: string) {
  const broken = await page.evaluate(async () => {
    const imgs = Array.from(document.images).filter((i) => i.getAttribute("src"));
    for (const i of imgs) i.loading = "eager";
    await Promise.all(
      imgs.map((i) =>
        i.complete
          ? null
          : new Promise((done) => {
              i.addEventListener("load", done, { once: true });
              i.addEventListener("error", done, { once: true });
              setTimeout(done, 10_000);
            }),
      ),
    );
    return imgs.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute("src"));
  });
  expect.soft(broken, `${where}: broken images`).toEqual([]);
}

// Every screen route of seed §2 once, against the real edge and writer, with
// no console errors (the fixture checks). Each names what must show.
const ROUTES: [string, RegExp | string][] = [
  ["/", "실시간 랭킹"],
  ["/webtoon", "웹툰"],
  ["/webtoon/best", "웹툰 베스트"],
  ["/webtoon/original", "오리지널"],
  ["/webtoon/shortstory", "단편"],
  ["/webtoon/todayup", "오늘 업데이트"],
  ["/webtoon/weekday", "요일 연재"],
  ["/webtoon/weekday/mon", "요일 연재"],
  ["/webtoon/genre", "웹툰 전체"],
  ["/webtoon/genre/21", "웹툰 로맨스"],
  ["/webtoon/genre/21/2", "웹툰 로맨스"],
  ["/comic", "만화"],
  ["/comic/benefit", "만화 꿀혜택"],
  ["/comic/best", "만화 베스트"],
  ["/comic/heroism", "만화 작가전"],
  ["/comic/genre/24", "만화 액션"],
  ["/comic/hq", "패키지"],
  ["/novel", "소설"],
  ["/novel/best", "소설 베스트"],
  ["/novel/romance", "소설 로맨스"],
  ["/novel/genre/05", "소설 판타지"],
  ["/novel/genre/all?sort=popular&style=list", "소설 전체"],
  ["/ranking", "랭킹"],
  ["/ranking?category=wt&tab=weekly", "랭킹"],
  ["/keyword", /#/],
  ["/keyword/1?id=2", "#빙의"],
  ["/search", "검색"],
  ["/search?q=%E3%84%B1", "‘ㄱ’ 검색 결과"],
  ["/awards", "블루페이지 어워즈"],
  ["/awards/webtoon", "올해의 웹툰"],
  ["/bluerun", "블루런"],
  ["/doublecoupon", "더블쿠폰"],
  ["/jumpingpass", "점핑패스"],
  ["/jumpingpass/wt", "점핑패스"],
  ["/cs", "고객센터"],
  ["/cs/faq", "자주 묻는 질문"],
  ["/cs/faq/list", "자주 묻는 질문"],
  ["/cs/faq/list/comic/1", "자주 묻는 질문"],
  ["/cs/faq/list/all/1?keyword=무료", "자주 묻는 질문"],
  ["/cs/privacy", "개인정보 처리방침"],
  ["/cs/qna", "1:1 문의하기"],
  ["/cs/qna/list", "내 문의 내역"],
  ["/cs/notice", "공지사항"],
  ["/cs/notice/2", "공지사항"],
  ["/cs/notice/closingprod", "판매 종료 작품 안내"],
  ["/mypages/recent", "최근 본 작품"],
  ["/mypages/recent/edit", "최근 본 작품 편집"],
  ["/blueincome", "블루머니 내역"],
  ["/cashback", "캐시백"],
  ["/conversation", "상담"],
  ["/specialset", "특가 세트"],
];

// Grouped so that one browser context walks many routes (the machine is small);
// soft assertions report every broken route of a group.
const GROUPS = 4;
for (let g = 0; g < GROUPS; g++) {
  test(`routes group ${g + 1}`, async ({ page }) => {
    test.setTimeout(180_000);
    for (const [path, text] of ROUTES.filter((_, i) => i % GROUPS === g)) {
      await page.goto(path);
      await expect.soft(page.getByRole("heading", { name: text }).first(), path).toBeVisible();
      await noBrokenImages(page, path);
    }
  });
}

// The old extension-less charge address (bookmarks, payments started before
// the gateway came back to the .asp page) redirects with its query.
test("/payment/recharge redirects to /payment/recharge.asp with its query", async ({ page }) => {
  await page.goto("/payment/recharge?need=2500&return=%2Fcs");
  await expect(page).toHaveURL(/\/payment\/recharge\.asp\?need=2500&return=%2Fcs$/);
  await expect(page.getByRole("heading", { name: "블루머니 충전" }).first()).toBeVisible();
  await expect(page.getByRole("radio", { checked: true })).toHaveText("3,000원");
});

// The seed's .asp pages load directly: old app builds open them by address.
test("the .asp pages load by their own address", async ({ page }) => {
  for (const [path, text] of [["/join/event.asp", "신규 가입 혜택"], ["/payment/recharge.asp", "블루머니 충전"]]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: text }).first()).toBeVisible();
    await noBrokenImages(page, path);
  }
});

test("events with their ids, previews, benefit and heroism pages", async ({ page, request }) => {
  const blue = (await (await request.get("/home/api/v1/events/bluerun")).json()).events[0];
  await page.goto(`/bluerun/${blue.eid}`);
  await expect(page.getByRole("heading", { name: blue.title }).first()).toBeVisible();
  await noBrokenImages(page, "bluerun");
  await page.goto(`/bluerun-preview/${blue.eid}`);
  await expect(page.getByRole("heading", { name: blue.title }).first()).toBeVisible();
  const dc = (await (await request.get("/home/api/v1/events/doublecoupon")).json()).events[0];
  await page.goto(`/doublecoupon/${dc.eid}`);
  await expect(page.getByRole("heading", { name: dc.title }).first()).toBeVisible();
  await page.goto(`/doublecoupon-preview/${dc.eid}`);
  await expect(page.getByRole("heading", { name: dc.title }).first()).toBeVisible();
  const ben = (await (await request.get("/home/api/v1/comic/benefit")).json()).events[0];
  await page.goto(`/comic/benefit/${ben.eid}`);
  await expect(page.getByRole("heading", { name: ben.title }).first()).toBeVisible();
  await noBrokenImages(page, "benefit");
  const hero = (await (await request.get("/home/api/v1/comic/heroism")).json()).events[0];
  await page.goto(`/comic/heroism/${hero.writer}/1`);
  await expect(page.getByTestId("product-item").first()).toBeVisible();
  const pkg = (await (await request.get("/home/api/v1/comic/hq")).json()).list[0];
  await page.goto(`/comic/hq/${pkg.pid}/1`);
  await expect(page.getByTestId("product-item").first()).toBeVisible();
});

test("member pages show the member's data", async ({ page }) => {
  await member(page);
  await page.goto("/cs/qna");
  await page.getByLabel("제목").fill("결제 문의");
  await page.getByLabel("문의 내용").fill("충전한 블루머니가 보이지 않아요.");
  await page.getByRole("button", { name: "문의 보내기" }).click();
  await expect(page).toHaveURL(/\/cs\/qna\/list/);
  await expect(page.getByText("결제 문의")).toBeVisible();
  await page.goto("/conversation");
  await expect(page.getByText("충전한 블루머니가 보이지 않아요.")).toBeVisible();
  await page.evaluate(() => {
    window.history.pushState({}, "", "/join/event.asp");
    window.dispatchEvent(new PopStateEvent("popstate"));
  });
  await page.getByRole("button", { name: "가입 보너스 받기" }).click();
  await expect(page.getByRole("button", { name: "지급 완료" })).toBeVisible();
  await page.goto("/blueincome");
  await expect(page.getByText("3,000원").first()).toBeVisible();
});

test("product lists: three columns of at least 96px, two-line titles, lazy thumbnails with reserved size, deadline badges", async ({ page, request }) => {
  await page.goto("/webtoon/genre/all");
  const items = page.getByTestId("product-item");
  await expect(items.first()).toBeVisible();
  const grid = page.getByRole("list", { name: /웹툰/ });
  expect(await grid.evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(" ").length)).toBe(3);
  expect((await items.first().boundingBox())!.width).toBeGreaterThanOrEqual(96);
  expect(await items.first().getByTestId("product-title").evaluate((el) => getComputedStyle(el).webkitLineClamp)).toBe("2");
  const img = items.nth(10).locator("img");
  expect(await img.getAttribute("loading")).toBe("lazy");
  expect(await img.getAttribute("width")).toBe("96");
  // a deadline badge on an event work
  const hero = (await (await request.get("/home/api/v1/comic/heroism")).json()).events as { writer: string; list: { deadlineToday: boolean; deadlineSoon: boolean }[] }[];
  const ev = hero.find((e) => e.list.some((x) => x.deadlineToday || x.deadlineSoon));
  if (ev) {
    await page.goto("/comic/heroism");
    await expect(page.locator("[data-testid^=badge-]").first()).toBeVisible();
  }
});

test("a list keeps its pages and scroll when the reader comes back", async ({ page }) => {
  await page.goto("/webtoon/genre/all");
  const items = page.getByTestId("product-item");
  // The first page is drawn in steps on the app's first load; the button comes with its last.
  await expect(page.getByTestId("list-more")).toBeVisible();
  const first = await items.count();
  await page.getByTestId("list-more").click();
  await expect.poll(() => items.count()).toBeGreaterThan(first);
  const n = await items.count();
  const target = items.nth(n - 2);
  await target.scrollIntoViewIfNeeded();
  const y = await page.evaluate(() => window.scrollY);
  expect(y).toBeGreaterThan(300);
  await target.click();
  await expect(page.getByTestId("detail")).toBeVisible();
  await page.goBack();
  await expect.poll(() => items.count()).toBe(n);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(y - 50);
});

test("genre list filter, sort and list style live in the address", async ({ page }) => {
  await page.goto("/novel/genre/all");
  await expect(page.getByLabel("정렬")).toHaveValue("recent");
  await page.getByLabel("정렬").selectOption("popular");
  await expect(page).toHaveURL(/sort=popular/);
  await page.getByRole("button", { name: "목록형으로 보기" }).click();
  await expect(page).toHaveURL(/style=list/);
  await expect(page.getByRole("button", { name: "바둑판형으로 보기" })).toBeVisible();
});
