import { expect, test } from "./fixtures";
import {
  createOperator,
  createStaff,
  signInOnPage,
  staffAPI,
  STAFF_PASSWORD,
  totp,
} from "./staff";

// Staff are people (issue 31): an operator made by the command creates a
// content manager, who signs in with TOTP on the admin screen and changes a
// price; the operator sees who changed it, before and after, in the audit
// trail; signing out ends the session on the server. The screen asks who
// is signed in (401 before sign-in) and the wrong code is refused (401):
// Chromium logs both.
test.use({ allowConsole: [/\/admin\/(media|audit).*status of 401/] });

test("staff: content manager signs in with TOTP, changes a price, and the operator's audit trail shows it", async ({
  page,
  browser,
  baseURL,
}) => {
  const opAccount = createOperator();
  const op = await staffAPI(baseURL!, opAccount);
  const cm = await createStaff(op, "content");

  // A wrong code is refused in Korean, and nothing is signed in.
  await page.goto("/admin/media");
  await page.getByLabel("아이디").fill(cm.login);
  await page.getByLabel("비밀번호").fill(STAFF_PASSWORD);
  await page
    .getByLabel("인증 코드")
    .fill(totp(cm.secret) === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "로그인" }).click();
  await expect(page.getByRole("alert")).toContainText(
    "인증 코드가 올바르지 않습니다",
  );

  await signInOnPage(page, cm);
  await expect(page.getByText(`${cm.name} (콘텐츠 담당)`)).toBeVisible();
  // The session is an HttpOnly cookie: the page's script cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain("sf_staff");
  const cookie = (await page.context().cookies()).find(
    (c) => c.name === "sf_staff",
  );
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Strict");

  // The content manager's changes, with the page's session.
  const created = await page.request.post("/admin/api/v1/works", {
    data: { section: "WT", title: "감사 기록 작품" },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { pid } = (await created.json()) as { pid: string };
  for (const buyPrice of [300, 500]) {
    const res = await page.request.put(`/admin/api/v1/works/${pid}/volumes/1`, {
      data: { title: "1화", buyPrice },
    });
    expect(res.status(), await res.text()).toBeLessThan(300);
  }
  // A content manager does not read the trail.
  expect((await page.request.get("/admin/api/v1/audit")).status()).toBe(403);

  // The operator signs in on the audit screen and finds the price change.
  const opContext = await browser.newContext();
  const opPage = await opContext.newPage();
  const second = createOperator();
  await opPage.goto(`/admin/audit?actor=${cm.login}`);
  await signInOnPage(opPage, second);
  const rows = opPage.getByTestId("audit-row");
  await expect(rows).toHaveCount(3);
  const price = rows.first();
  await expect(price).toContainText(cm.login);
  await expect(price).toContainText("콘텐츠 담당");
  await expect(price).toContainText("PUT works/{pid}/volumes/{no}");
  await expect(price).toContainText(`work:${pid}`);
  await expect(price.getByRole("cell").nth(5)).toContainText('"buyPrice":300');
  await expect(price.getByRole("cell").nth(6)).toContainText('"buyPrice":500');
  // The CSV export has the same row.
  const csv = await opPage.request.get(
    `/admin/api/v1/audit.csv?actor=${cm.login}`,
  );
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain(`work:${pid}`);
  await opContext.close();

  // Signing out ends the session on the server: the page's calls are refused.
  await page.getByRole("button", { name: "로그아웃" }).click();
  await expect(page.getByLabel("인증 코드")).toBeVisible();
  expect(
    (
      await page.request.post("/admin/api/v1/works", {
        data: { section: "WT", title: "x" },
      })
    ).status(),
  ).toBe(401);
  await op.dispose();
});
