import { certifyOnSandboxPage, dismissInterests, expect, openMenu, PASSWORD, test, uniqueEmail } from "./fixtures";

test("adult verification needs login first (from=adult), then verifies, and the 19 toggle switches adult mode", async ({ page, context }) => {
  test.setTimeout(240_000);
  await page.goto("/adultverification?url=%2Fcs");
  await expect(page).toHaveURL(/\/nuxgin\?url=%2Fadultverification%3Furl%3D%252Fcs&from=adult$/);
  await expect(page.getByRole("note")).toContainText("성인 인증이 필요한 작품입니다.");

  await page.getByRole("button", { name: "이메일로 회원가입" }).click();
  await page.getByLabel("이메일").fill(uniqueEmail());
  await page.getByLabel("비밀번호").fill(PASSWORD);
  await page.getByRole("button", { name: "이메일로 가입하기" }).click();
  await expect(page).toHaveURL(/\/adultverification\?url=%2Fcs$/);
  await dismissInterests(page);

  // The identity sandbox's certification page stands in for the provider's
  // window; it sends the browser back here and the writer reads the result.
  await page.getByRole("button", { name: "본인인증하기" }).click();
  await certifyOnSandboxPage(page, "김성인", "1990-05-05");
  await expect(page.getByTestId("adult-result")).toContainText("성인 인증이 완료되었습니다.");
  await expect(page).toHaveURL(/\/adultverification\?url=%2Fcs$/);
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name === "sf_adult")?.value).toBe("Y");
  await page.getByRole("button", { name: "계속하기" }).click();
  await expect(page).toHaveURL(/\/cs$/);

  const side = await openMenu(page);
  const toggle = side.getByRole("switch", { name: "성인 작품 보기 (19)" });
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  const after = await context.cookies();
  const mode = after.find((c) => c.name === "sf_adult")!;
  expect(mode.value).toBe("N");
  expect((mode.expires - Date.now() / 1000) / 86400).toBeGreaterThan(364);
  expect(decodeURIComponent(after.find((c) => c.name === "sf_member")!.value)).toContain("19Toggle=OFF");

  // Persisted: a reload keeps adult-off.
  await page.reload();
  const side2 = await openMenu(page);
  await expect(side2.getByRole("switch", { name: "성인 작품 보기 (19)" })).toHaveAttribute("aria-checked", "false");
});

test("a teen is verified but not adult; korea=ok is the domestic verification", async ({ page }) => {
  const res = await page.request.post("/home/api/v1/auth/signup", { data: { email: uniqueEmail(), password: PASSWORD } });
  expect(res.status()).toBe(201);
  await page.goto("/adultverification?korea=ok");
  await expect(page.getByRole("heading", { name: "국내 본인인증" })).toBeVisible();
  await dismissInterests(page);
  const year = new Date().getFullYear() - 15;
  await page.getByRole("button", { name: "본인인증하기" }).click();
  await certifyOnSandboxPage(page, "이청소", `${year}-01-01`);
  await expect(page.getByTestId("adult-result")).toHaveText("만 19세 미만은 성인 작품을 이용할 수 없습니다.");
  await expect(page).toHaveURL(/\/adultverification\?korea=ok$/);
  const side = await openMenu(page);
  await expect(side.getByRole("switch")).toHaveCount(0);
});

test("a verification that fails at the provider says so and changes nothing", async ({ page }) => {
  const res = await page.request.post("/home/api/v1/auth/signup", { data: { email: uniqueEmail(), password: PASSWORD } });
  expect(res.status()).toBe(201);
  await page.goto("/adultverification");
  await dismissInterests(page);
  await page.getByRole("button", { name: "본인인증하기" }).click();
  // The sandbox's way to fail a real-name check: a name containing 불일치.
  await certifyOnSandboxPage(page, "김불일치", "1990-05-05");
  await expect(page.getByRole("alert")).toContainText("본인인증 정보가 일치하지 않습니다.");
  await expect(page.getByTestId("adult-result")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "본인인증하기" })).toBeEnabled();
});
