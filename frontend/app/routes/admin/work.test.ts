import { beforeEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "~/utils/http";

const calls: { path: string; opts?: { method?: string; json?: unknown } }[] = [];
let answers: Record<string, unknown> = {};
vi.mock("~/utils/api", () => ({
  http: vi.fn(async (path: string, opts?: { method?: string; json?: unknown }) => {
    calls.push({ path, opts });
    const a = answers[`${opts?.method ?? "GET"} ${path}`];
    if (a instanceof Error) throw a;
    return a ?? { header: { code: 200, message: "" } };
  }),
}));

const { clientAction, clientLoader } = await import("./work");
const { COUNT_MESSAGE, PRICE_MESSAGE } = await import("~/components/admin/earlyAccess");

const params = { pid: "wt_1" };
const form = (o: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(o)) f.set(k, v);
  return new Request("http://store.test/admin/works/wt_1", { method: "POST", body: f });
};
const staff = { id: 1, login: "c", name: "콘텐츠", role: "content", permissions: ["catalog"] };

beforeEach(() => {
  calls.length = 0;
  answers = {};
});

describe("admin/works/:pid", () => {
  it("loads the work for signed-in staff, and only the sign-in without a session", async () => {
    answers["GET /admin/api/v1/session"] = { staff };
    answers["GET /admin/api/v1/works/wt_1"] = { product: { pid: "wt_1", section: "WT", title: "작품", earlyCount: 2, earlyPrice: 300 } };
    const d = await clientLoader({ request: new Request("http://store.test/admin/works/wt_1"), params });
    expect(d.work?.earlyCount).toBe(2);
    answers["GET /admin/api/v1/session"] = new HttpError("api", 401, 401, "로그인이 필요합니다.");
    calls.length = 0;
    expect(await clientLoader({ request: new Request("http://store.test/admin/works/wt_1"), params })).toEqual({ staff: null, work: null });
    expect(calls.map((c) => c.path)).toEqual(["/admin/api/v1/session"]);
  });

  it("shows the writer's message when it does not load the work (another role)", async () => {
    answers["GET /admin/api/v1/session"] = { staff: { ...staff, role: "analyst", permissions: [] } };
    answers["GET /admin/api/v1/works/wt_1"] = new HttpError("api", 403, 403, "권한이 없습니다.");
    const d = await clientLoader({ request: new Request("http://store.test/admin/works/wt_1"), params });
    expect(d).toMatchObject({ work: null, message: "권한이 없습니다." });
  });

  it("saves both fields, and price 0 when early access is turned off", async () => {
    expect(await clientAction({ request: form({ intent: "early", earlyCount: "2", earlyPrice: "300" }), params })).toEqual({ saved: true });
    expect(await clientAction({ request: form({ intent: "early", earlyCount: "0", earlyPrice: "300" }), params })).toEqual({ saved: true });
    expect(calls).toEqual([
      { path: "/admin/api/v1/works/wt_1", opts: { method: "PATCH", json: { earlyCount: 2, earlyPrice: 300 } } },
      { path: "/admin/api/v1/works/wt_1", opts: { method: "PATCH", json: { earlyCount: 0, earlyPrice: 0 } } },
    ]);
  });

  it("saves a comic's page order: right to left or back", async () => {
    expect(await clientAction({ request: form({ intent: "order", order: "rtl" }), params })).toEqual({ saved: true });
    expect(await clientAction({ request: form({ intent: "order", order: "ltr" }), params })).toEqual({ saved: true });
    expect(calls).toEqual([
      { path: "/admin/api/v1/works/wt_1", opts: { method: "PATCH", json: { rightToLeft: true } } },
      { path: "/admin/api/v1/works/wt_1", opts: { method: "PATCH", json: { rightToLeft: false } } },
    ]);
    answers["PATCH /admin/api/v1/works/wt_1"] = new HttpError("api", 400, 400, "오른쪽에서 왼쪽으로 넘기기(rightToLeft)는 만화(CM)에만 정할 수 있습니다.");
    expect(await clientAction({ request: form({ intent: "order", order: "rtl" }), params })).toEqual({ message: "오른쪽에서 왼쪽으로 넘기기(rightToLeft)는 만화(CM)에만 정할 수 있습니다." });
  });

  it("refuses a bad setting before sending it", async () => {
    expect(await clientAction({ request: form({ intent: "early", earlyCount: "51", earlyPrice: "300" }), params })).toEqual({ message: COUNT_MESSAGE, field: "earlyCount" });
    expect(await clientAction({ request: form({ intent: "early", earlyCount: "1", earlyPrice: "150" }), params })).toEqual({ message: PRICE_MESSAGE, field: "earlyPrice" });
    expect(calls).toEqual([]);
  });

  it("shows the writer's message when it refuses the save", async () => {
    answers["PATCH /admin/api/v1/works/wt_1"] = new HttpError("api", 422, 422, "미리보기 가격(earlyPrice)은 100원부터 1000000원까지, 100원 단위로 정해 주세요.");
    expect(await clientAction({ request: form({ intent: "early", earlyCount: "1", earlyPrice: "300" }), params })).toEqual({
      message: "미리보기 가격(earlyPrice)은 100원부터 1000000원까지, 100원 단위로 정해 주세요.",
    });
  });
});
