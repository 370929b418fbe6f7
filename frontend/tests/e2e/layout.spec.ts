import { expect, test } from "./fixtures";

test.describe("header by path prefix", () => {
  // Some screens ask member APIs that answer a visitor 401.
  test.use({ allowConsole: [/status of 401/] });
  for (const [path, kind] of [
    ["/", "main"],
    ["/cs", "main"],
    ["/nope-not-a-route", "main"],
    ["/webtoon", "section"],
    ["/comic/best", "section"],
    ["/novel", "section"],
    ["/jumpingpass", "none"],
    ["/mypages/recent/edit", "none"],
  ] as const) {
    test(`${path} has the ${kind} header`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator("main#main")).toBeVisible();
      if (kind === "none") {
        await expect(page.locator("header[data-header]")).toHaveCount(0);
      } else {
        await expect(page.locator(`header[data-header="${kind}"]`)).toBeVisible();
      }
    });
  }

  test("main header holds the five top-level tabs; section header names the section", async ({ page }) => {
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "주요 메뉴" });
    await expect(nav.getByRole("link")).toHaveText(["시리즈", "로맨스", "판타지/무협", "BL", "일반"]);
    await page.goto("/comic");
    await expect(page.locator('header[data-header="section"] h1')).toHaveText("만화");
  });
});

test.describe("web-only layout parts", () => {
  test("footer and sidebar on the web", async ({ page }) => {
    await page.goto("/cs");
    await expect(page.getByRole("contentinfo")).toBeVisible();
    await page.getByRole("button", { name: "메뉴 열기" }).click();
    const side = page.getByTestId("sidebar");
    await expect(side).toBeVisible();
    await expect(page.getByTestId("dim")).toBeVisible();
    await expect(page.locator("body")).toHaveAttribute("data-scroll-lock", "true");
    await side.getByRole("button", { name: "메뉴 닫기" }).click();
    await expect(side).toBeHidden();
    await expect(page.locator("body")).not.toHaveAttribute("data-scroll-lock", "true");
  });

  test("top banner on Android web: closable, stays hidden by its cookie", async ({ page, context }) => {
    await page.goto("/cs");
    const banner = page.getByTestId("top-banner");
    await expect(banner).toBeVisible();
    expect((await banner.boundingBox())!.height).toBe(72);
    await banner.getByRole("button", { name: "배너 닫기" }).click();
    await expect(banner).toBeHidden();
    expect((await context.cookies()).find((c) => c.name === "sf_topbanner_hide")?.value).toBe("Y");
    await page.reload();
    await expect(page.locator("header[data-header]")).toBeVisible();
    await page.waitForTimeout(200);
    await expect(page.getByTestId("top-banner")).toHaveCount(0);
  });
});

test.describe("not on iOS web", () => {
  test.use({ userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1" });
  test("no top banner", async ({ page }) => {
    await page.goto("/cs");
    await expect(page.locator("header[data-header]")).toBeVisible();
    await page.waitForTimeout(200);
    await expect(page.getByTestId("top-banner")).toHaveCount(0);
  });
});

// The store has a name (issue 24): the tab title, the header's logo, the
// footer and the installable manifest all say it, never a placeholder.
test("the brand is 블루페이지 in the title, header, footer and manifest", async ({ page, request }) => {
  await page.goto("/");
  await expect(page).toHaveTitle("블루페이지");
  await expect(page.locator('header[data-header="main"] a[href="/"]').first()).toHaveText("블루페이지");
  await expect(page.locator("footer")).toContainText("© 블루페이지");
  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  expect(href).toBe("/manifest.webmanifest");
  const res = await request.get(href!);
  expect(res.status()).toBe(200);
  const manifest = await res.json();
  expect(manifest.name).toBe("블루페이지");
  expect(manifest.lang).toBe("ko");
  await expect(page.locator("body")).not.toContainText("스토어프론트");
});
