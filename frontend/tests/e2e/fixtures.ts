import { createHash, randomUUID } from "node:crypto";
import { test as base, expect, type BrowserContext, type ConsoleMessage, type Page, type Route } from "@playwright/test";

/** Console errors a page logged; every e2e test asserts there are none. */
export type ConsoleErrors = { list: string[] };

export function watchConsole(page: Page, into: string[]) {
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error") into.push(`${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => into.push(`${page.url()}: pageerror ${e.message}`));
}

/** Fails the test on console errors not matched by `allow`. */
export function assertNoConsoleErrors(errors: string[], allow: RegExp[] = []) {
  const left = errors.filter((e) => !allow.some((r) => r.test(e)));
  expect(left, "console errors").toEqual([]);
}

export const test = base.extend<{ consoleErrors: ConsoleErrors; allowConsole: RegExp[] }>({
  allowConsole: [[], { option: true }],
  consoleErrors: [
    async ({ page, allowConsole }, use) => {
      const errors: ConsoleErrors = { list: [] };
      watchConsole(page, errors.list);
      await use(errors);
      assertNoConsoleErrors(errors.list, allowConsole);
    },
    { auto: true },
  ],
});

export { expect };

export const PASSWORD = "password-123";
export const uniqueEmail = () => `e2e-${randomUUID().slice(0, 12)}@example.com`;

/** signup makes a member through the writer's API; the context gets its cookies. */
export async function signup(ctx: BrowserContext | Page, email = uniqueEmail()) {
  const res = await ctx.request.post("/home/api/v1/auth/signup", { data: { email, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(201);
  return email;
}

/** The response signature the page checks (contract/signature.go): SFS1, or SFS2 when version is "2". */
export function sign(status: number, token: string, body: string, version?: string) {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");
  if (version === "2") return "SFS2 " + sha(`${sha(body)}\n${status}\n${token}`);
  return "SFS1 " + sha(`${status}\n${token}\n${body}`);
}

/** fulfillSigned answers an intercepted API call with a correctly signed body. */
export async function fulfillSigned(route: Route, status: number, body: unknown) {
  const headers = route.request().headers();
  const token = headers["x-request-token"] ?? "";
  const text = JSON.stringify(body);
  const sig = sign(status, token, text, headers["x-signature-version"]);
  await route.fulfill({ status, contentType: "application/json", body: text, headers: { Authorization: sig } });
}

export async function openMenu(page: Page) {
  await page.getByRole("button", { name: "메뉴 열기" }).click();
  return page.getByTestId("sidebar");
}

/** A new member sees the interests-genres sheet once; "later" sends the rejection. */
export async function dismissInterests(page: Page) {
  const sheet = page.getByTestId("interests-sheet");
  const rejected = page.waitForResponse((r) => r.url().endsWith("/interests/genres/rejection"));
  await sheet.getByRole("button", { name: "다음에 할게요" }).click();
  expect((await rejected).status()).toBe(204);
  await expect(sheet).toBeHidden();
}

/**
 * A phone number no other test uses: the identity sandbox derives a person's
 * CI from name, birth date and phone, and one CI verifies one account only.
 */
export const uniquePhone = () => `010${String(parseInt(randomUUID().replace(/-/g, "").slice(0, 12), 16) % 100_000_000).padStart(8, "0")}`;

/**
 * Adult verification as the browser does it, through the API: start a
 * verification (adult/start), certify on the identity sandbox's page (the
 * stand-in for the provider's window), finish (adult/verify). Returns the
 * verify answer.
 */
export async function verifyThroughSandbox(ctx: BrowserContext | Page, name: string, birthDate: string) {
  const started = await ctx.request.post("/home/api/v1/auth/adult/start");
  expect(started.status(), await started.text()).toBe(200);
  const { identityVerificationId, pageUrl } = (await started.json()) as { identityVerificationId: string; pageUrl: string };
  expect((await ctx.request.get(pageUrl)).status()).toBe(200);
  const certified = await ctx.request.post(pageUrl, { form: { name, birthDate, phoneNumber: uniquePhone(), gender: "FEMALE" }, maxRedirects: 0 });
  expect(certified.status(), await certified.text()).toBe(200);
  return ctx.request.post("/home/api/v1/auth/adult/verify", { data: { identityVerificationId } });
}

/** Fills the identity sandbox's certification page the page opened. */
export async function certifyOnSandboxPage(page: Page, name: string, birthDate: string) {
  await expect(page.getByRole("heading", { name: "본인인증 (샌드박스)" })).toBeVisible();
  await page.getByLabel("이름").fill(name);
  await page.getByLabel("생년월일").fill(birthDate);
  await page.getByLabel("휴대폰 번호").fill(uniquePhone());
  await page.getByRole("button", { name: "인증하기", exact: true }).click();
}
