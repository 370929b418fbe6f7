import { assertNoConsoleErrors, dismissInterests, expect, openMenu, PASSWORD, signup, test, uniqueEmail, watchConsole } from "./fixtures";

test("email sign-up from /nuxgin returns to the url target and shows the member in the sidebar; logout", async ({ page, context }) => {
  const email = uniqueEmail();
  await page.goto("/nuxgin?url=%2Fcs%2Ffaq");
  await expect(page.getByRole("link", { name: "카카오로 시작하기" })).toHaveAttribute("href", "/home/api/v1/auth/oauth/kakao/start?url=%2Fcs%2Ffaq");
  await expect(page.getByRole("link", { name: "네이버로 시작하기" })).toHaveAttribute("href", "/home/api/v1/auth/oauth/naver/start?url=%2Fcs%2Ffaq");
  await page.getByRole("button", { name: "이메일로 회원가입" }).click();
  await page.getByLabel("이메일").fill(email);
  await page.getByLabel("비밀번호").fill(PASSWORD);
  await page.getByRole("button", { name: "이메일로 가입하기" }).click();
  await expect(page).toHaveURL(/\/cs\/faq$/);
  await dismissInterests(page);
  let side = await openMenu(page);
  await expect(side.getByTestId("user-name")).toHaveText(email);
  await expect(side.getByTestId("money")).toHaveText(/원$/);
  await side.getByRole("button", { name: "로그아웃" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("floating-message")).toHaveText("로그아웃 되었습니다.");
  expect((await context.cookies()).find((c) => c.name === "sf_bid" && c.value)).toBeUndefined();
  side = await openMenu(page);
  await expect(side.getByRole("button", { name: "로그인 / 회원가입" })).toBeVisible();
});

test.describe("bad credentials", () => {
  test.use({ allowConsole: [/status of 401/] });
  test("a wrong password shows the writer's message", async ({ page }) => {
    const email = await signup(page);
    await page.context().clearCookies();
    await page.goto("/nuxgin");
    await page.getByLabel("이메일").fill(email);
    await page.getByLabel("비밀번호").fill("wrong-password");
    await page.getByRole("button", { name: "이메일로 로그인" }).click();
    await expect(page.getByRole("alert")).toHaveText("이메일 또는 비밀번호가 올바르지 않습니다.");
    await page.getByLabel("이메일").fill("not-an-email");
    await page.getByRole("button", { name: "이메일로 로그인" }).click();
    await expect(page.getByRole("alert")).toHaveText("이메일 형식이 올바르지 않습니다.");
  });
});

test("logout in one tab logs the other tab out (storage key 'logout') and drops the quick-view entry", async ({ page, context }) => {
  const email = await signup(page);
  await page.goto("/cs");
  await dismissInterests(page);
  const other = await context.newPage();
  const otherErrors: string[] = [];
  watchConsole(other, otherErrors);
  await other.goto("/cs/faq");
  await other.evaluate(() => localStorage.setItem("quickView", "off"));
  let side = await openMenu(other);
  await expect(side.getByTestId("user-name")).toHaveText(email);
  await side.getByRole("button", { name: "메뉴 닫기" }).click();

  side = await openMenu(page);
  await side.getByRole("button", { name: "로그아웃" }).click();
  await expect(page).toHaveURL(/\/$/);

  await expect(other).toHaveURL(/\/$/);
  expect(await other.evaluate(() => localStorage.getItem("quickView"))).toBeNull();
  side = await openMenu(other);
  await expect(side.getByRole("button", { name: "로그인 / 회원가입" })).toBeVisible();
  assertNoConsoleErrors(otherErrors);
});

test("member id without web id: auto-login redirect with the current path (the writer then sends a stranger to /nuxgin)", async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: "sf_member", value: "uid=424242&loginType=N", url: baseURL! }]);
  const autoLogin = page.waitForRequest((r) => r.url().includes("/api/v-1/user/login_auto.asp"));
  await page.goto("/cs/faq?x=1");
  expect(new URL((await autoLogin).url()).searchParams.get("new_url")).toBe("/cs/faq?x=1");
  await expect(page).toHaveURL(/\/nuxgin\?url=%2Fcs%2Ffaq%3Fx%3D1$/);
  await expect(page.getByRole("button", { name: "이메일로 로그인" })).toBeVisible();
});

test("a valid save-login cookie outside dev logs in again through the auto-login page", async ({ page, context }) => {
  const email = await signup(page);
  await context.clearCookies();
  await page.goto("/nuxgin?url=%2Fcs");
  await page.getByLabel("이메일").fill(email);
  await page.getByLabel("비밀번호").fill(PASSWORD);
  await page.getByLabel("로그인 상태 유지").check();
  await page.getByRole("button", { name: "이메일로 로그인" }).click();
  await expect(page).toHaveURL(/\/cs$/);

  // The session ends (browser restart): only the save-login cookies stay.
  // Leave the app first so that no member call of its is in flight when the
  // session cookie goes (its 401 would be a console error of this test's own making).
  await page.goto("about:blank");
  const keep = (await context.cookies()).filter((c) => c.name === "sf_save" || c.name === "sf_autologin");
  expect(keep.map((c) => c.name).sort()).toEqual(["sf_autologin", "sf_save"]);
  await context.clearCookies();
  await context.addCookies(keep);
  // The first load plays a live site with empty storage; the writer here
  // writes dev cookies, so the page after the auto-login plays dev again.
  await page.addInitScript(() => {
    if (!sessionStorage.getItem("e2e_restarted")) {
      localStorage.clear();
      sessionStorage.clear();
      sessionStorage.setItem("e2e_restarted", "1");
      localStorage.setItem("sf_env", "live");
    }
    if (sessionStorage.getItem("sf_autologin_at")) localStorage.removeItem("sf_env");
  });
  const autoLogin = page.waitForRequest((r) => r.url().includes("/api/v-1/user/login_auto.asp?new_url=%2Fcs%2Fnotice"));
  await page.goto("/cs/notice");
  await autoLogin;
  await expect(page).toHaveURL(/\/cs\/notice$/);
  const side = await openMenu(page);
  await expect(side.getByTestId("user-name")).toHaveText(email);
});

test("a new member's interests-genres sheet saves the chosen genres and does not come back", async ({ page }) => {
  await signup(page);
  await page.goto("/cs");
  const sheet = page.getByTestId("interests-sheet");
  await expect(sheet.getByRole("heading", { name: "관심 장르를 알려주세요" })).toBeVisible();
  await sheet.getByRole("button", { name: "로맨스", exact: true }).click();
  await expect(sheet.getByRole("button", { name: "로맨스", exact: true })).toHaveAttribute("aria-pressed", "true");
  const put = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/users/interests/genres") && r.request().method() === "PUT");
  await sheet.getByRole("button", { name: "저장" }).click();
  expect((await put).status()).toBe(201);
  await expect(page.getByTestId("floating-message")).toHaveText("관심 장르가 저장되었습니다.");
  await page.reload();
  await expect(page.locator("header[data-header]")).toBeVisible();
  await page.waitForTimeout(1000);
  await expect(page.getByTestId("interests-sheet")).toHaveCount(0);
});
