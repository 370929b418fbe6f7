import { expect, test } from "./fixtures";

test("the home page renders works served by the edge", async ({ page, consoleErrors, request }) => {
  // What the edge serves, read directly from its home API.
  const res = await request.get("/home/api/v1/home?section=all");
  expect(res.status()).toBe(200);
  const home = (await res.json()) as { sections: { title: string; list: { title: string; pid: string }[] }[] };
  expect(home.sections.length).toBeGreaterThan(0);
  const first = home.sections[0];

  await page.goto("/");
  const section = page.getByRole("region", { name: first.title });
  await expect(section.getByRole("heading", { name: first.title })).toBeVisible();
  const items = section.getByTestId("product-item");
  await expect(items).toHaveCount(first.list.length);
  await expect(items.first().getByTestId("product-title")).toHaveText(first.list[0].title);

  // Three columns, each at least 96px wide; titles clamped to two lines.
  const cols = await section.getByRole("list").evaluate((el) => getComputedStyle(el).gridTemplateColumns.split(" ").length);
  expect(cols).toBe(3);
  const box = await items.first().boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(96);
  const clamp = await items.first().getByTestId("product-title").evaluate((el) => getComputedStyle(el).webkitLineClamp);
  expect(clamp).toBe("2");
  expect(consoleErrors.list).toEqual([]);
});
