import { execFileSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import path from "node:path";
import {
  expect,
  request as newRequest,
  type APIRequestContext,
  type Page,
} from "@playwright/test";

/**
 * Staff for end-to-end tests. There is no default staff account in any mode:
 * the first operator comes from the command (`storefront staff
 * create-operator`), run here against the stack's database (E2E_DATABASE_URL,
 * which scripts/test.sh sets next to BASE_URL). Each test makes its own
 * accounts: a TOTP code is good once per account.
 */
export const STAFF_PASSWORD = "e2e staff password 1234";

const bin = path.join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "bin",
  "storefront",
);

export type StaffAccount = { login: string; name: string; secret: string };

const unique = (prefix: string) =>
  `${prefix}-${randomBytes(4).toString("hex")}`;

/** Creates an operator with the command line, as docs/operations.md says. */
export function createOperator(): StaffAccount {
  const url = process.env.E2E_DATABASE_URL;
  if (!url)
    throw new Error(
      "E2E_DATABASE_URL (the stack's PostgreSQL) is required to create the first operator",
    );
  const login = unique("e2e-op");
  const out = execFileSync(
    bin,
    [
      "staff",
      "create-operator",
      "-json",
      "-login",
      login,
      "-name",
      "운영자 " + login,
      "-database-url",
      url,
      "-log-level",
      "error",
    ],
    {
      input: STAFF_PASSWORD + "\n",
      encoding: "utf8",
    },
  );
  const c = JSON.parse(out) as { totpSecret: string };
  return { login, name: "운영자 " + login, secret: c.totpSecret };
}

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s) of a base32 secret: what an authenticator app shows. */
export function totp(secret: string, at = Date.now()): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secret.replace(/=+$/, "").toUpperCase())
    bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const off = mac[mac.length - 1] & 0xf;
  const n =
    ((mac[off] & 0x7f) << 24) |
    (mac[off + 1] << 16) |
    (mac[off + 2] << 8) |
    mac[off + 3];
  return String(n % 1_000_000).padStart(6, "0");
}

/** An API client signed in as account (its own cookie jar). */
export async function staffAPI(
  baseURL: string,
  a: StaffAccount,
): Promise<APIRequestContext> {
  const req = await newRequest.newContext({ baseURL });
  const res = await req.post("/admin/api/v1/session", {
    data: { login: a.login, password: STAFF_PASSWORD, code: totp(a.secret) },
  });
  expect(res.status(), await res.text()).toBe(200);
  return req;
}

/** The operator creates an account with role through the staff API. */
export async function createStaff(
  op: APIRequestContext,
  role: string,
  extra: Record<string, string> = {},
): Promise<StaffAccount> {
  const login = unique(`e2e-${role}`);
  const name = `${role} ${login}`;
  const res = await op.post("/admin/api/v1/staff", {
    data: { login, name, role, password: STAFF_PASSWORD, ...extra },
  });
  expect(res.status(), await res.text()).toBe(201);
  return {
    login,
    name,
    secret: ((await res.json()) as { totpSecret: string }).totpSecret,
  };
}

/** Signs in on a staff screen's form (password and the authenticator's code). */
export async function signInOnPage(page: Page, a: StaffAccount) {
  await page.getByLabel("아이디").fill(a.login);
  await page.getByLabel("비밀번호").fill(STAFF_PASSWORD);
  await page.getByLabel("인증 코드").fill(totp(a.secret));
  await page.getByRole("button", { name: "로그인" }).click();
  await expect(page.getByRole("button", { name: "로그아웃" })).toBeVisible();
}
