// Analysts of the e2e suites: a member made through the writer's real API,
// given the analyst role by the catalog admin, logged in again so the context
// carries the writer's signed analyst cookie the reports ask for.
import { expect, type APIRequestContext } from "@playwright/test";
import { PW, newEmail } from "./members";

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? "dev-admin-token";

/** becomeAnalyst signs up a new member in req's cookie jar and makes it an analyst. */
export async function becomeAnalyst(req: APIRequestContext, email = newEmail()): Promise<{ email: string; uid: string }> {
  const res = await req.post("/home/api/v1/auth/signup", { data: { email, password: PW } });
  expect(res.status(), await res.text()).toBe(201);
  const uid = ((await res.json()) as { authInfo: { uid: string } }).authInfo.uid;
  await req.post("/home/api/v1/users/interests/genres/rejection");
  const role = await req.put(`/admin/api/v1/users/${uid}/role`, { data: { role: "analyst" }, headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(role.status(), await role.text()).toBe(200);
  // /me hands out the analyst cookie (the SPA asks it at start).
  expect((await req.get("/home/api/v1/auth/me")).status()).toBe(200);
  return { email, uid };
}

/** report GETs one report with req's analyst cookie and expects 200. */
export async function report<T>(req: APIRequestContext, path: string): Promise<T> {
  const res = await req.get(`/analytics/api/v1/reports/${path}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as T;
}
