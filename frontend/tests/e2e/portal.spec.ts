import { randomUUID } from "node:crypto";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { member } from "./members";
import { createOperator, createStaff, signInOnPage, staffAPI } from "./staff";

// The partner portal (issue 31 item 3, the chained "done when"): an
// operator makes a provider's contract and account and a content manager;
// the provider signs in with TOTP, adds an episode of its own work (refused
// under its contract's lowest price), uploads its pictures through the media
// pipeline, schedules it; a member cannot buy it before the release and can
// after it (the member's writer clock moved, -dev-clock); the provider sees
// the purchase and the reader in its daily sales; a content manager changes
// the price on the same screen and the operator's audit trail shows who,
// before and after. The moderator's part (a reported review hidden, readers
// no longer get it) is moderation.spec.ts.

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";
// The screens ask who is signed in before the sign-in: a 401 the console
// shows; the refused price is a 400 it shows too.
test.use({ allowConsole: [/\/admin\/(portal|audit|media).*status of (401|400)/] });

/** "YYYY-MM-DDTHH:mm" in Korean time, t ms from now (a datetime-local value). */
const kst = (t: number) => new Date(Date.now() + t + 9 * 3600_000).toISOString().slice(0, 16);
const HOUR = 3600_000;

test("partner portal: a provider uploads and schedules an episode, sees its purchase after the release; a content manager's price change is in the audit trail", async ({
  page,
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const op = await staffAPI(baseURL!, createOperator());
  const provider = `e2e-${randomUUID().slice(0, 8)}`;
  const pid = `pp${randomUUID().slice(0, 8)}`;
  const created = await request.post("/admin/api/v1/works", {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: {
      pid,
      section: "WT",
      title: `제공사 작품 ${pid.slice(2)}`,
      genreId: "12",
      age: 0,
      serviceCode: 200,
      authors: [{ authorName: "작가", isWriter: true }],
      volumes: [{ no: 1, title: "1화", isFree: true, pages: 2, previewPages: 2 }],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const contract = await op.put(`/admin/api/v1/providers/${provider}`, {
    data: { name: `스튜디오 ${provider.slice(4)}`, rateBp: 6000, limits: { minPrice: 100, maxPrice: 1000, maxFree: 1 } },
  });
  expect(contract.status(), await contract.text()).toBe(200);
  expect((await op.put(`/admin/api/v1/providers/${provider}/works/${pid}`)).status()).toBe(200);
  const account = await createStaff(op, "provider", { providerId: provider });
  const cm = await createStaff(op, "content");
  await op.dispose();

  // The provider signs in (password and TOTP) and sees its contract and work.
  await page.goto("/admin/portal");
  await signInOnPage(page, account);
  await expect(page.getByTestId("portal-limits")).toContainText("유료 회차 가격 100원~1,000원, 무료 회차 작품당 1개까지");
  await page.getByRole("link", { name: new RegExp(`\\(${pid}\\)`) }).click();
  await expect(page.getByRole("heading", { name: `제공사 작품 ${pid.slice(2)} 회차` })).toBeVisible();
  // Another provider's work (a demo work: nobody's) is refused by the writer.
  const other = await page.request.get("/admin/api/v1/works/wt000001");
  expect(other.status()).toBe(403);

  // A new episode, two hours ahead; under the contract's lowest price it is refused.
  const neu = page.getByRole("form", { name: "새 회차" });
  await neu.getByLabel("새 회차 제목").fill("2화");
  await neu.getByLabel("새 회차 공개 시각 (한국 시간)").fill(kst(2 * HOUR));
  await neu.getByLabel("새 회차 구매 가격(원)").fill("50");
  await neu.getByRole("button", { name: "회차 추가" }).click();
  await expect(page.getByRole("alert")).toContainText("계약의 최저 가격 100원보다 낮습니다");
  await neu.getByLabel("새 회차 구매 가격(원)").fill("300");
  await neu.getByRole("button", { name: "회차 추가" }).click();
  await expect(page.getByRole("status")).toContainText("2화를 추가했습니다");

  // Its pictures through the media pipeline, on the content team's upload screen.
  await page.getByRole("link", { name: "2화 파일 올리기" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/media\\?pid=${pid}&no=2`));
  await page.getByLabel(/^파일/).setInputFiles(["strip-1.jpg", "strip-2.jpg"].map((f) => path.join(import.meta.dirname, "media", f)));
  await page.getByRole("button", { name: "올리기" }).click();
  await expect(page.getByTestId("job-state")).toHaveAttribute("data-state", "done", { timeout: 180_000 });

  // The schedule: an hour ahead.
  await page.goto(`/admin/portal?pid=${pid}`);
  const ep = page.getByRole("form", { name: "2화" });
  await expect(ep).toContainText("파일 버전");
  await ep.getByLabel("2화 공개 시각 (한국 시간)").fill(kst(HOUR));
  await ep.getByRole("button", { name: "2화 저장" }).click();
  await expect(page.getByRole("status")).toContainText("2화를 저장했습니다");
  await expect(page.getByRole("form", { name: "2화" })).toContainText("공개 예정");

  // A member cannot buy it before the release; after it (the member's clock
  // moved two hours on), it buys it with its join bonus.
  const reader = await browser.newContext();
  await member(reader);
  expect((await reader.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200);
  const buy = () =>
    reader.request.post("/home/api/v1/purchases", {
      data: { pid, vols: [2], buyType: "B" },
      headers: { "Idempotency-Key": randomUUID() },
    });
  expect((await buy()).status()).toBeGreaterThanOrEqual(400);
  await reader.addCookies([{ name: "sf_devclock", value: String(2 * 3600), url: baseURL! }]);
  const bought = await buy();
  expect(bought.status(), await bought.text()).toBe(200);
  await reader.close();

  // The provider sees the purchase and its reader in the day's sales (the
  // sale is dated on the member's moved clock).
  await page.goto(`/admin/portal?month=${kst(2 * HOUR).slice(0, 7)}`);
  const row = page.getByTestId("portal-day").filter({ hasText: `(${pid})` });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("(1건)");
  await expect(row).toContainText("300원"); // paid with the join bonus: the mileage column
  await expect(row).toContainText("1명");
  // The portal with its forms and table is accessible.
  await page.goto(`/admin/portal?pid=${pid}&month=${kst(2 * HOUR).slice(0, 7)}`);
  await expect(page.getByRole("form", { name: "2화" })).toBeVisible();
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // A content manager changes the price on the same screen.
  const cmContext = await browser.newContext();
  const cmPage = await cmContext.newPage();
  await cmPage.goto(`/admin/portal?pid=${pid}`);
  await signInOnPage(cmPage, cm);
  const cmEp = cmPage.getByRole("form", { name: "2화" });
  await cmEp.getByLabel("2화 구매 가격(원)").fill("500");
  await cmEp.getByRole("button", { name: "2화 저장" }).click();
  await expect(cmPage.getByRole("status")).toContainText("2화를 저장했습니다");
  await cmContext.close();

  // The operator's audit trail: who, before and after.
  const opContext = await browser.newContext();
  const opPage = await opContext.newPage();
  await opPage.goto(`/admin/audit?actor=${cm.login}`);
  await signInOnPage(opPage, createOperator());
  const change = opPage.getByTestId("audit-row").first();
  await expect(change).toContainText(cm.login);
  await expect(change).toContainText("콘텐츠 담당");
  await expect(change).toContainText(`work:${pid}`);
  await expect(change.getByRole("cell").nth(5)).toContainText('"buyPrice":300');
  await expect(change.getByRole("cell").nth(6)).toContainText('"buyPrice":500');
  // The provider's own changes are there too, under its name and role.
  await opPage.goto(`/admin/audit?actor=${account.login}`);
  await expect(opPage.getByTestId("audit-row").first()).toContainText("제공사");
  await opContext.close();
});
