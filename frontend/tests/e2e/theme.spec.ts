import { expect, openMenu, test } from "./fixtures";

const themeColor = (page: import("@playwright/test").Page) => page.locator('meta[name="theme-color"]').getAttribute("content");

test("switching to dark sets the attribute, the theme colour and a 30-day cookie that survives reload", async ({ page, context }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/cs");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await themeColor(page)).toBe("#ffffff");
  const side = await openMenu(page);
  await expect(side.getByRole("radio", { name: "시스템" })).toHaveAttribute("aria-checked", "true");
  await side.getByRole("radio", { name: "다크" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme-setting", "dark");
  expect(await themeColor(page)).toBe("#1c1c1c");
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe("rgb(28, 28, 28)");
  const cookie = (await context.cookies()).find((c) => c.name === "theme")!;
  expect(cookie.value).toBe("dark");
  const days = (cookie.expires - Date.now() / 1000) / 86400;
  expect(days).toBeGreaterThan(29.9);
  expect(days).toBeLessThanOrEqual(30);

  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await themeColor(page)).toBe("#1c1c1c");
});

test("auto follows the system and its changes; light overrides it", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/cs");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  const side = await openMenu(page);
  await side.getByRole("radio", { name: "라이트" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await themeColor(page)).toBe("#ffffff");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
});
