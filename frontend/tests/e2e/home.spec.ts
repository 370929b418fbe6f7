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

test("a top-level tab shows that category's works and is marked current", async ({ page, request }) => {
  type List = { list: { title: string }[] };
  // What the edge serves for the romance category, per area (the home shelves of the tab).
  const areas = [
    { area: "webtoon", label: "웹툰" },
    { area: "comic", label: "만화" },
    { area: "novel", label: "소설" },
  ];
  const want: { title: string; works: string[] }[] = [];
  for (const a of areas) {
    const res = await request.get(`/home/api/v1/${a.area}/genre/romance?sort=popular&size=12`);
    expect(res.status()).toBe(200);
    const l = (await res.json()) as List;
    if (l.list.length > 0) want.push({ title: `${a.label} 로맨스`, works: l.list.map((x) => x.title) });
  }
  expect(want.length).toBeGreaterThan(0);
  const home = (await (await request.get("/home/api/v1/home?section=all")).json()) as { sections: { title: string }[] };

  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "주요 메뉴" });
  await expect(nav.getByRole("link", { name: "시리즈" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("region", { name: home.sections[0].title })).toBeVisible();

  await nav.getByRole("link", { name: "로맨스" }).click();
  await expect(page).toHaveURL(/\/\?tab=romance$/);
  await expect(nav.getByRole("link", { name: "로맨스" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "시리즈" })).not.toHaveAttribute("aria-current", "page");
  // Exactly the tab's shelves, in order, each with the edge's works for that category.
  await expect(page.locator("section h2")).toHaveText(want.map((w) => w.title));
  for (const w of want) {
    const region = page.getByRole("region", { name: w.title });
    await expect(region.getByTestId("product-title")).toHaveText(w.works);
  }
  await expect(page.getByRole("region", { name: home.sections[0].title })).toHaveCount(0);

  // Back to the series tab: the whole home again.
  await nav.getByRole("link", { name: "시리즈" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(nav.getByRole("link", { name: "시리즈" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("region", { name: home.sections[0].title })).toBeVisible();
});
