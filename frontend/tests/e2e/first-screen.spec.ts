import { expect, test } from "./fixtures";

// The first screen the edge draws (edge/server/pages.go): the routes readers
// land on come with the pictures they show first, painted before the app's
// JavaScript has run; the app starts after them, hydrates without a
// mismatch (every test fails on console errors) and takes the drawing away
// once its own route is drawn, with the same pictures in it. What is never
// drawn (a page past the preview, an adult work) is checked by the edge's
// TestFirstScreen.

type Work = { pid: string; isAdult: boolean };

async function aWebtoon(request: import("@playwright/test").APIRequestContext): Promise<string> {
  const list = (await (await request.get("/home/api/v1/webtoon/genre/all?size=12&sort=popular")).json()).list as Work[];
  const w = list.find((x) => !x.isAdult);
  expect(w, "a webtoon a visitor may see").toBeTruthy();
  return w!.pid;
}

test("home, genre list, detail and viewer: drawn first, then the app's own screen with the same pictures", async ({ page, request }) => {
  const pid = await aWebtoon(request);
  const pages = [
    { path: "/", app: page.getByRole("region", { name: "배너" }).getByRole("img").first() },
    { path: "/webtoon/genre", app: page.getByTestId("product-item").first().locator("img") },
    { path: `/webtoon/detail/${pid}`, app: page.locator("main header img").first() },
    { path: `/viewer?pid=${pid}&no=1`, app: page.getByTestId("page").first() },
  ];
  for (const p of pages) {
    // The document itself carries the drawing and the picture's preload.
    const html = await (await request.get(p.path)).text();
    const lead = /<sf-first aria-hidden="true" class="[a-z]+">.*?<img (?:src|srcset)="([^"]+)"/s.exec(html);
    expect(lead, `${p.path}: the edge's drawing`).not.toBeNull();
    expect(html, `${p.path}: the picture preloaded`).toContain(`<link rel="preload" as="image"`);
    expect(html, `${p.path}: the app's modules wait for the drawing`).not.toContain(`<link rel="modulepreload"`);

    await page.goto(p.path);
    await expect(p.app, `${p.path}: the app's own screen`).toBeVisible();
    await expect(page.locator("sf-first"), `${p.path}: the drawing is gone`).toHaveCount(0);
    // The app shows the very picture the edge drew (one download, no swap).
    const src = await p.app.evaluate((img: HTMLImageElement) => img.getAttribute("srcset") ?? img.getAttribute("src"));
    expect(src, p.path).toBe(lead![1].replaceAll("&amp;", "&"));
  }
});

// Issue 19: a link shared in a chat previews with the work's own title,
// summary and cover. The chat's crawler runs no JavaScript: the document the
// edge answers carries the tags (edge/server/pages.go shareTags).
test("a detail URL fetched without JavaScript carries the work's Open Graph tags", async ({ request, baseURL }) => {
  const pid = await aWebtoon(request);
  const d = (await (await request.get(`/home/api/v1/products/${pid}`)).json()) as { prodInfo: { title: string; summary: string; thumbUrl: string } };
  const html = await (await request.get(`/webtoon/detail/${pid}?utm_source=chat`)).text();
  const meta = (attr: string, name: string) => {
    const m = html.match(new RegExp(`<meta ${attr}="${name}" content="([^"]*)"/>`));
    expect(m, `${name} in the document`).toBeTruthy();
    return m![1].replaceAll("&#34;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  };
  const origin = new URL(baseURL!).origin;
  expect(meta("property", "og:title")).toBe(d.prodInfo.title);
  expect(meta("property", "og:description")).toBe(d.prodInfo.summary);
  expect(meta("property", "og:image")).toBe(origin + d.prodInfo.thumbUrl);
  expect(meta("property", "og:url")).toBe(`${origin}/webtoon/detail/${pid}`);
  expect(meta("name", "twitter:card")).toBe("summary_large_image");
  expect(meta("name", "twitter:image")).toBe(origin + d.prodInfo.thumbUrl);
  expect(html).toContain(`<link rel="canonical" href="${origin}/webtoon/detail/${pid}"/>`);
});
