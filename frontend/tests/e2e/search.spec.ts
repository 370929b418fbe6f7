import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { member } from "./members";

// The search screen (issue 34 item 1) against the real edge: the header's
// search icon opens it, a member types a title's initial consonants and opens
// the work, the query is kept as a recent search on the device.

type Work = { pid: string; title: string; isAdult: boolean };

const HANGUL = /[가-힣]/;
const INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
/** The title's initial consonants, as a reader types them: no spaces or punctuation. */
function chosung(title: string, max = 6): string {
  let out = "";
  for (const ch of title) {
    if (out.length >= max) break;
    if (HANGUL.test(ch)) out += INITIALS[Math.floor((ch.codePointAt(0)! - 0xac00) / 588)];
    else if (/[\p{L}\p{N}]/u.test(ch)) out += ch.toLowerCase();
  }
  return out;
}

async function hangulWork(req: APIRequestContext): Promise<Work> {
  const list = (await (await req.get("/home/api/v1/webtoon/genre/all?size=48&sort=popular")).json()).list as Work[];
  const work = list.find((w) => !w.isAdult && HANGUL.test([...w.title][0] ?? ""));
  expect(work, "a webtoon whose title starts with a Hangul syllable").toBeTruthy();
  return work!;
}

const searchbox = (page: Page) => page.getByRole("searchbox", { name: "작품 검색" });
const results = (page: Page) => page.getByRole("list", { name: "검색 결과" });

test("a member opens search from the header, types a title's initial consonants and opens the work", async ({ page }) => {
  await member(page);
  const work = await hangulWork(page.request);
  const q = chosung(work.title);
  await page.goto("/");
  await page.getByRole("banner").getByRole("link", { name: "검색" }).click();
  await expect(page).toHaveURL(/\/search$/);
  await expect(page.getByRole("heading", { name: "검색", level: 1 })).toBeVisible();
  await expect(page.getByText("최근 검색어가 없습니다.")).toBeVisible();
  // The keyword tags stay one tap away.
  await expect(page.getByRole("link", { name: "키워드로 찾기" })).toHaveAttribute("href", "/keyword");

  await searchbox(page).pressSequentially(q, { delay: 40 });
  const hit = results(page).getByRole("link", { name: new RegExp(escape(work.title)) }).first();
  await expect(hit).toBeVisible();
  await expect(page.getByRole("heading", { name: new RegExp(`‘${escape(q)}’ 검색 결과`) })).toBeVisible();
  await hit.click();
  await expect(page).toHaveURL(new RegExp(`/detail/${work.pid}`));
  await expect(page.getByTestId("detail")).toBeVisible();

  // Back on the screen: the query is a recent search; it searches again, and it can be deleted.
  await page.goto("/search");
  const recent = page.getByRole("list", { name: "최근 검색어" });
  await expect(recent.getByRole("button", { name: q, exact: true })).toBeVisible();
  await recent.getByRole("button", { name: q, exact: true }).click();
  await expect(searchbox(page)).toHaveValue(q);
  await expect(results(page).getByRole("link", { name: new RegExp(escape(work.title)) }).first()).toBeVisible();
  await searchbox(page).fill("");
  await recent.getByRole("button", { name: `${q} 삭제` }).click();
  await expect(page.getByText("최근 검색어가 없습니다.")).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("sf_recent_searches"))).toBe("[]");
});

test("spaces do not matter, a query nothing matches says so, and the keyword tags are reachable", async ({ page }) => {
  const work = await hangulWork(page.request);
  const spaced = [...work.title.replace(/\s+/g, "")].slice(0, 4).join(" ");
  await page.goto("/search");
  await searchbox(page).fill(spaced);
  await expect(results(page).getByRole("link", { name: new RegExp(escape(work.title)) }).first()).toBeVisible();
  await searchbox(page).fill("없는작품qzxw");
  await expect(page.getByText("검색 결과가 없습니다.", { exact: false })).toBeVisible();
  await page.getByRole("link", { name: "키워드로 찾기" }).click();
  await expect(page).toHaveURL(/\/keyword$/);
});

/** The title's first syllables (no spaces) with one vowel changed: one jamo off (edge/README.md, typo tolerance). */
function oneJamoOff(title: string): string | undefined {
  const syl = [...title.replace(/\s+/g, "")].slice(0, 5);
  if (syl.length < 3 || !syl.every((c) => HANGUL.test(c))) return undefined;
  const code = syl[1].codePointAt(0)! - 0xac00;
  const vowel = Math.floor((code % 588) / 28);
  syl[1] = String.fromCodePoint(0xac00 + code - vowel * 28 + ((vowel + 1) % 21) * 28);
  return syl.join("");
}

test("a title typed one jamo off is still found", async ({ page }) => {
  const list = (await (await page.request.get("/home/api/v1/webtoon/genre/all?size=48&sort=popular")).json()).list as Work[];
  const work = list.find((w) => !w.isAdult && oneJamoOff(w.title));
  expect(work, "a webtoon whose title starts with three Hangul syllables").toBeTruthy();
  await page.goto("/search");
  await searchbox(page).fill(oneJamoOff(work!.title)!);
  await expect(results(page).getByRole("link", { name: new RegExp(escape(work!.title)) }).first()).toBeVisible();
});

test("a visitor's search shows no adult work", async ({ page }) => {
  await page.goto("/search");
  for (const q of ["ㄱ", "ㅅ", "ㅇ"]) {
    await searchbox(page).fill(q);
    await expect(page.getByRole("heading", { name: `‘${q}’ 검색 결과`, exact: false })).toBeVisible();
    await expect(results(page).getByLabel("19세 이용가")).toHaveCount(0);
  }
});

for (const theme of ["light", "dark"] as const) {
  test(`axe finds no violation on the search screen (${theme} theme)`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    const work = await hangulWork(page.request);
    await page.goto("/search");
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    await page.evaluate((q) => localStorage.setItem("sf_recent_searches", JSON.stringify([q, "귀멸"])), chosung(work.title));
    await page.reload();
    await expect(page.getByRole("list", { name: "최근 검색어" })).toBeVisible();
    const report: string[] = [];
    const check = async (where: string) => {
      const { violations } = await new AxeBuilder({ page }).analyze();
      for (const v of violations) report.push(`${where} ${v.impact} ${v.id}: ${v.help} [${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}]`);
    };
    await check("recent searches");
    await searchbox(page).fill(chosung(work.title));
    await expect(results(page).getByRole("link").first()).toBeVisible();
    await check("results");
    await searchbox(page).fill("없는작품qzxw");
    await expect(page.getByText("검색 결과가 없습니다.", { exact: false })).toBeVisible();
    await check("no results");
    expect(report, report.join("\n")).toEqual([]);
  });
}

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
