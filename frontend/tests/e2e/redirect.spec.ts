// Return targets (seed §8, issue 25 item 9): after login, a target on the
// store's own host that is not a path of this app is reached by a full page
// replace; any other host goes to "/" (the open-redirect protection).
import { expect, PASSWORD, test, uniqueEmail } from "./fixtures";

async function signUpHere(page: import("@playwright/test").Page) {
  await page.getByRole("button", { name: "이메일로 회원가입" }).click();
  await page.getByLabel("이메일").fill(uniqueEmail());
  await page.getByLabel("비밀번호").fill(PASSWORD);
  await page.getByRole("button", { name: "이메일로 가입하기" }).click();
}

test("an absolute address of the store's own host is a full replace after login", async ({ page, baseURL }) => {
  const target = `${baseURL}/cs/faq?from=mail`;
  await page.goto(`/nuxgin?url=${encodeURIComponent(target)}`);
  // A mark on this document: a full replace loads a new one without it.
  await page.evaluate(() => ((window as unknown as { __sameDoc: boolean }).__sameDoc = true));
  const loads: string[] = [];
  page.on("framenavigated", (f) => f === page.mainFrame() && loads.push(f.url()));
  await signUpHere(page);
  await expect(page).toHaveURL(target);
  expect(await page.evaluate(() => (window as unknown as { __sameDoc?: boolean }).__sameDoc ?? false)).toBe(false);
  // Replaced, not pushed: Back does not return to the login page.
  expect(loads).toContain(target);
});

test("another host is refused: the reader lands on the home page", async ({ page }) => {
  const asked: string[] = [];
  await page.route("https://evil.example/**", (r) => {
    asked.push(r.request().url());
    return r.fulfill({ status: 200, contentType: "text/html", body: "evil" });
  });
  await page.goto(`/nuxgin?url=${encodeURIComponent("https://evil.example/steal")}`);
  await signUpHere(page);
  await expect(page).toHaveURL(/\/$/);
  expect(asked).toEqual([]);
});
