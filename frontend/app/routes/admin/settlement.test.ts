import { beforeEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "~/utils/http";

const calls: { path: string; opts?: { query?: Record<string, string> } }[] = [];
let answers: Record<string, unknown> = {};
vi.mock("~/utils/api", () => ({
  http: vi.fn(
    async (path: string, opts?: { query?: Record<string, string> }) => {
      calls.push({ path, opts });
      const a = answers[path];
      if (a instanceof Error) throw a;
      return a ?? { header: { code: 200, message: "" } };
    },
  ),
}));

const { clientLoader } = await import("./settlement");

const load = (q: string) =>
  clientLoader({
    request: new Request(`http://store.test/admin/settlement${q}`),
  });

const provider = {
  id: 3,
  login: "studio.a",
  name: "A",
  role: "provider",
  providerId: "studio-a",
  permissions: ["settlement"],
};

beforeEach(() => {
  calls.length = 0;
  answers = {};
});

describe("admin settlement", () => {
  it("asks for the signed-in provider's own statement by default", async () => {
    answers["/admin/api/v1/session"] = { staff: provider };
    answers["/admin/api/v1/providers/studio-a/settlement"] = {
      statement: { providerId: "studio-a", works: [] },
    };
    const d = await load("?month=2026-10");
    expect(d.provider).toBe("studio-a");
    expect(d.statement?.providerId).toBe("studio-a");
    expect(calls[1]).toEqual({
      path: "/admin/api/v1/providers/studio-a/settlement",
      opts: expect.objectContaining({ query: { month: "2026-10" } }),
    });
  });

  it("shows the writer's refusal of another provider's statement", async () => {
    answers["/admin/api/v1/session"] = { staff: provider };
    answers["/admin/api/v1/providers/studio-b/settlement"] = new HttpError(
      "api",
      403,
      403,
      "다른 제공사의 정보는 볼 수 없습니다.",
    );
    const d = await load("?provider=studio-b&month=2026-10");
    expect(d.statement).toBeNull();
    expect(d.message).toBe("다른 제공사의 정보는 볼 수 없습니다.");
  });

  it("asks nothing before a staff member signs in", async () => {
    answers["/admin/api/v1/session"] = new HttpError(
      "api",
      401,
      401,
      "직원 계정으로 로그인해 주세요.",
    );
    const d = await load("");
    expect(d.staff).toBeNull();
    expect(calls).toHaveLength(1);
  });
});
