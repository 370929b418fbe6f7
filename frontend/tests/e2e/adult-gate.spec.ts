import { randomUUID } from "node:crypto";
import type { APIRequestContext, BrowserContext } from "@playwright/test";
import { certifyOnSandboxPage, expect, test, verifyThroughSandbox } from "./fixtures";
import { member } from "./members";

// The adult gate of a 19+ work's detail page (seed §4-§6): the teen version
// (visitor, member without verification, adult with the 19 toggle off) sees
// the gate and never the work; a verified adult with the toggle on sees the
// work. The work is made through the writer's admin API, so the test does not
// depend on what the demo catalog happens to hold.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";

async function adultWork(request: APIRequestContext) {
  const pid = `adult-${randomUUID().slice(0, 8)}`;
  const title = `성인 전용 ${pid.slice(6)}`;
  const res = await request.post("/admin/api/v1/works", {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: {
      pid,
      section: "WT",
      title,
      genreId: "12",
      age: 19,
      serviceCode: 200,
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [
        { no: 1, title: "1화", isFree: true, pages: 4, previewPages: 4 },
        { no: 2, title: "2화", buyPrice: 100, rentPrice: 50, pages: 6, previewPages: 2 },
      ],
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  // Served once a visitor (teen version) gets the verification-needed state.
  await expect
    .poll(async () => {
      const r = await request.get(`/home/api/v1/products/${pid}`);
      return r.ok() && ((await r.json()) as { adultVerificationNeeded?: boolean }).adultVerificationNeeded === true;
    }, { timeout: 30_000 })
    .toBe(true);
  return { pid, title };
}

async function verifyAdult(context: BrowserContext) {
  const res = await verifyThroughSandbox(context, "김성인", "1990-05-05");
  expect(res.status(), await res.text()).toBe(200);
}

test("a visitor sees the gate, never the work, and logs in from it for adult verification", async ({ page, request }) => {
  const w = await adultWork(request);
  await page.goto(`/webtoon/detail/${w.pid}`);
  const gate = page.getByTestId("adult-gate");
  await expect(gate).toContainText("청소년 이용 불가 작품입니다.");
  await expect(gate).toContainText("19세 이상 성인 인증 후 이용할 수 있습니다.");
  await expect(page.getByText(w.title)).toHaveCount(0);
  await gate.getByRole("button", { name: "로그인하고 성인 인증하기" }).click();
  await expect(page).toHaveURL(new RegExp(`/nuxgin\\?url=${encodeURIComponent(`/webtoon/detail/${w.pid}`)}.*from=adult`));
});

test("a member verifies from the gate, then sees the work; with the 19 toggle off the gate is back", async ({ page, context, request }) => {
  const w = await adultWork(request);
  await member(context);
  await page.goto(`/webtoon/detail/${w.pid}`);
  const gate = page.getByTestId("adult-gate");
  await expect(gate).toBeVisible();
  await expect(page.getByText(w.title)).toHaveCount(0);
  await gate.getByRole("link", { name: "성인 인증하기" }).click();
  await expect(page).toHaveURL(/\/adultverification/);
  await page.getByRole("button", { name: "본인인증하기" }).click();
  await certifyOnSandboxPage(page, "김성인", "1990-05-05");
  await expect(page.getByTestId("adult-result")).toContainText("성인 인증이 완료되었습니다.");

  await page.goto(`/webtoon/detail/${w.pid}`);
  await expect(page.getByTestId("adult-gate")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: w.title })).toBeVisible();

  const off = await context.request.put("/home/api/v1/auth/adult/toggle", { data: { on: false } });
  expect(off.status(), await off.text()).toBe(200);
  await page.goto(`/webtoon/detail/${w.pid}`);
  await expect(page.getByTestId("adult-gate")).toBeVisible();
  await expect(page.getByText(w.title)).toHaveCount(0);
});

test("a teen's verification leaves the gate in place", async ({ page, context, request }) => {
  const w = await adultWork(request);
  await member(context);
  const year = new Date().getFullYear() - 16;
  const res = await verifyThroughSandbox(context, "이청소", `${year}-03-03`);
  expect(res.status(), await res.text()).toBe(200);
  await page.goto(`/webtoon/detail/${w.pid}`);
  await expect(page.getByTestId("adult-gate")).toBeVisible();
  await expect(page.getByText(w.title)).toHaveCount(0);
  // And the control: the same work opens for a verified adult.
  const adult = await page.context().browser()!.newContext({ baseURL: test.info().project.use.baseURL });
  try {
    await member(adult);
    await verifyAdult(adult);
    const p2 = await adult.newPage();
    await p2.goto(`/webtoon/detail/${w.pid}`);
    await expect(p2.getByRole("heading", { name: w.title })).toBeVisible();
  } finally {
    await adult.close();
  }
});

// Seed §5: verification is asked only of readers who are not adult
// (contract/cases/audience.json gives each reader's gate).
test("an adult with the 19 toggle off is offered the toggle, never verification, and the toggle opens the work", async ({ page, context, request }) => {
  const w = await adultWork(request);
  await member(context);
  await verifyAdult(context);
  const off = await context.request.put("/home/api/v1/auth/adult/toggle", { data: { on: false } });
  expect(off.status(), await off.text()).toBe(200);
  await page.goto(`/webtoon/detail/${w.pid}`);
  const gate = page.getByTestId("adult-gate");
  await expect(gate).toContainText("성인 작품 보기(19)를 켜면 이용할 수 있습니다.");
  await expect(gate.getByRole("link", { name: "성인 인증하기" })).toHaveCount(0);
  await expect(page.getByText(w.title)).toHaveCount(0);
  await gate.getByRole("button", { name: "성인 작품 보기 켜기" }).click();
  await expect(page.getByRole("heading", { name: w.title })).toBeVisible();
  await expect(page.getByTestId("adult-gate")).toHaveCount(0);
});

test.describe("a verified adult in the Play Store app", () => {
  test.use({ userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 SFApp/AA/6.1.0/kr.storefront.app" });
  test("is told the work is not available in this app, not asked to verify", async ({ page, context, request }) => {
    const w = await adultWork(request);
    await member(context);
    await verifyAdult(context);
    await page.goto(`/webtoon/detail/${w.pid}`);
    const gate = page.getByTestId("adult-gate");
    await expect(gate).toContainText("이 앱에서는 성인 작품을 이용할 수 없습니다.");
    await expect(gate.getByRole("link", { name: "성인 인증하기" })).toHaveCount(0);
    await expect(gate.getByRole("button")).toHaveCount(0);
    await expect(page.getByText(w.title)).toHaveCount(0);
  });
});
