import { expect, fulfillSigned, sign, test } from "./fixtures";

// A failed API answer shows in Chromium's console as a failed resource load;
// these tests cause such answers on purpose.
test.use({ allowConsole: [/Failed to load resource: the server responded with a status of (400|403|404|500)/] });

test("an unmatched route shows 'This page could not be found' with a home button and no CS link", async ({ page }) => {
  await page.goto("/no/such/page");
  const err = page.getByTestId("error-page");
  await expect(err.getByRole("heading", { name: "페이지를 찾을 수 없습니다" })).toBeVisible();
  await expect(err.getByText("This page could not be found")).toBeVisible();
  await expect(err.getByRole("link", { name: /고객센터/ })).toHaveCount(0);
  await err.getByRole("button", { name: "홈으로" }).click();
  await expect(page).toHaveURL(/\/$/);
});

const loginErrors = [
  [400, "페이지가 작동하지 않습니다", "홈으로", true],
  [403, "페이지에 접근할 수 없습니다", "홈으로", true],
  [404, "페이지를 찾을 수 없습니다", "홈으로", false],
  [500, "이용에 불편을 드려 죄송합니다", "새로고침", true],
  [501, "이용에 불편을 드려 죄송합니다", "새로고침", true],
] as const;
for (const [code, title, button, cs] of loginErrors) {
  test(`/nuxgin/error/${code}`, async ({ page }) => {
    await page.goto(`/nuxgin/error/${code}`);
    const err = page.getByTestId("error-page");
    await expect(err).toHaveAttribute("data-status", String(code));
    await expect(err.getByRole("heading", { name: title })).toBeVisible();
    await expect(err.getByRole("button", { name: button })).toBeVisible();
    await expect(err.getByRole("link", { name: /고객센터/ })).toHaveCount(cs ? 1 : 0);
    if (cs) await expect(err.getByRole("link", { name: /고객센터/ })).toHaveAttribute("href", "/cs/");
    if (button === "새로고침") {
      const nav = page.waitForEvent("framenavigated");
      await err.getByRole("button", { name: button }).click();
      await nav;
      await expect(page).toHaveURL(new RegExp(`/nuxgin/error/${code}$`));
    }
  });
}

for (const status of [400, 404, 500]) {
  test(`a ${status} answer of the API opens the error page with that status`, async ({ page }) => {
    await page.route("**/home/api/v1/home?**", (route) => fulfillSigned(route, status, { header: { code: status, message: `answer ${status}` } }));
    await page.goto("/");
    const err = page.getByTestId("error-page");
    await expect(err).toHaveAttribute("data-status", String(status));
    await expect(err.getByText(`answer ${status}`)).toBeVisible();
  });
}

test("the page asks for SFS2 and the edge signs its answers so, brotli or not (contract/signature.go)", async ({ page }) => {
  const answered = page.waitForResponse((r) => r.url().includes("/home/api/v1/home?"));
  await page.goto("/");
  const res = await answered;
  const req = res.request().headers();
  expect(req["x-signature-version"]).toBe("2");
  const body = await res.text();
  expect(res.headers()["authorization"]).toBe(sign(res.status(), req["x-request-token"], body, "2"));
  await expect(page.getByTestId("error-page")).toHaveCount(0);
});

test("an SFS2 answer with a changed body is a forged response", async ({ page }) => {
  await page.route("**/home/api/v1/home?**", async (route) => {
    const h = route.request().headers();
    const good = '{"header":{"code":200,"message":""},"sections":[]}';
    const sig = sign(200, h["x-request-token"] ?? "", good, "2");
    await route.fulfill({ status: 200, contentType: "application/json", body: good.replace("[]", "[{}]"), headers: { Authorization: sig } });
  });
  await page.goto("/");
  const err = page.getByTestId("error-page");
  await expect(err).toHaveAttribute("data-status", "500");
  await expect(err.getByText("forged response")).toBeVisible();
});

test("a forged answer (signature mismatch) is not shown as data", async ({ page }) => {
  await page.route("**/home/api/v1/home?**", (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: '{"header":{"code":200,"message":""},"sections":[]}', headers: { Authorization: "SFS1 00" } }),
  );
  await page.goto("/");
  const err = page.getByTestId("error-page");
  await expect(err).toHaveAttribute("data-status", "500");
  await expect(err.getByText("forged response")).toBeVisible();
});

test("an API call without an answer for 50 s opens 408 'time out'", async ({ page }) => {
  await page.clock.install();
  let asked!: () => void;
  const called = new Promise<void>((r) => (asked = r));
  await page.route("**/home/api/v1/home?**", () => {
    asked(); // and never answers
  });
  await page.goto("/");
  await called;
  // The exact 50 s boundary is a unit test (http.test.ts); here the clock jumps past it.
  await page.clock.runFor(50_000);
  const err = page.getByTestId("error-page");
  await expect(err).toHaveAttribute("data-status", "408");
  await expect(err.getByText("time out")).toBeVisible();
  await expect(err.getByRole("button", { name: "홈으로" })).toBeVisible();
});

test("offline on the web: error 40 with the wifi-off graphic; retry reloads", async ({ page }) => {
  await page.addInitScript(() => {
    if (!sessionStorage.getItem("e2e-online")) Object.defineProperty(Navigator.prototype, "onLine", { get: () => false });
  });
  await page.goto("/cs");
  const err = page.getByTestId("error-page");
  await expect(err).toHaveAttribute("data-status", "40");
  await expect(err.getByRole("heading", { name: "오프라인 상태입니다" })).toBeVisible();
  await expect(err.getByText("인터넷 연결 상태를 확인해 주세요.")).toBeVisible();
  await expect(err.getByTestId("wifi-off")).toBeVisible();
  await page.evaluate(() => sessionStorage.setItem("e2e-online", "1"));
  await err.getByRole("button", { name: "다시 시도" }).click();
  await expect(page.getByTestId("error-page")).toHaveCount(0);
  await expect(page.locator("header[data-header]")).toBeVisible();
});
