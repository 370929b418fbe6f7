// Issue 34: a member reads an episode and finds it on the home page's
// 이어보기 shelf, then opens 내 서재 and finds the works saved and owned.
import AxeBuilder from "@axe-core/playwright";
import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { member, paidWork } from "./members";

test("a member reads an episode, sees it under 이어보기 and finds saved and owned works in 내 서재", async ({ page, request }) => {
  const { detail, vol, free } = await paidWork(request, "webtoon");
  const { pid, title } = detail.prodInfo;
  await member(page);

  // Saved (zzim) and owned (a bought volume), through the store's own calls.
  expect((await page.request.post("/protocol/appapi/mb/user/info/zzim-add", { form: { zzim_type: "prod", pid } })).status()).toBe(200);
  expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
  const buy = await page.request.post("/home/api/v1/purchases", { data: { pid, vols: [vol.no], buyType: "B" }, headers: { "Idempotency-Key": randomUUID() } });
  expect(buy.status(), await buy.text()).toBe(200);

  // Read the free episode: scrolling saves the place with the writer.
  await page.goto(`/viewer?pid=${encodeURIComponent(pid)}&no=${free.no}`);
  const pages = page.getByTestId("page");
  await expect(pages.first()).toBeVisible();
  await page.mouse.wheel(0, 600);
  await expect
    .poll(async () => (await (await page.request.get(`/home/api/v1/users/reading-place/${encodeURIComponent(pid)}`)).json()).place?.vol, { timeout: 20_000 })
    .toBe(free.no);

  // The home page shows it under 이어보기, opening the episode where it stopped.
  await page.goto("/");
  const shelf = page.getByRole("region", { name: "이어보기" });
  await expect(shelf).toBeVisible();
  const item = shelf.getByRole("link", { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) });
  await expect(item).toContainText("이어보기");
  await expect(item).toHaveAttribute("href", `/viewer?pid=${encodeURIComponent(pid)}&no=${free.no}`);

  // 내 서재: saved, then owned, each with the episode to read next.
  await page.goto("/mypages/library/saved");
  await expect(page.getByRole("list", { name: "찜한 작품" }).getByTestId("library-item").filter({ hasText: title })).toContainText("이어보기");
  await page.getByRole("link", { name: "업데이트 순" }).click();
  await expect(page).toHaveURL(/\/mypages\/library\/saved\?sort=update$/);
  await expect(page.getByTestId("library-item").filter({ hasText: title })).toBeVisible();
  await page.getByRole("navigation", { name: "서재 목록" }).getByRole("link", { name: "소장" }).click();
  await expect(page).toHaveURL(/\/mypages\/library\/owned$/);
  await expect(page.getByRole("list", { name: "소장" }).getByTestId("library-item").filter({ hasText: title })).toBeVisible();
  // axe, every impact level, on a filled shelf.
  expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" ")}`)).toEqual([]);
  await page.getByRole("navigation", { name: "서재 목록" }).getByRole("link", { name: "선물함" }).click();
  await expect(page).toHaveURL(/\/mypages\/gifts$/);
});

test("a visitor sees no 이어보기 shelf and is asked to log in for 내 서재", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "홈" })).toBeAttached();
  await expect(page.getByTestId("continue-shelf")).toHaveCount(0);
  await page.goto("/mypages/library/owned");
  await expect(page.getByText("로그인이 필요한 서비스입니다.")).toBeVisible();
});
