import { beforeEach, describe, expect, it, vi } from "vitest";

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

const { clientAction, clientLoader, failMessage, receiptPushMessage, validSetting, SCHEDULED, THRESHOLD } = await import("./payment-auto");

const form = (o: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(o)) f.set(k, v);
  return new Request("http://store.test/payment/auto", { method: "POST", body: f });
};

beforeEach(() => {
  calls.length = 0;
  answers = {};
});

describe("payment-auto", () => {
  it("says in Korean what became of asking for receipts on this device", () => {
    expect(receiptPushMessage("subscribed")).toBe("충전 영수증과 자동 충전 알림을 이 기기로 보내 드립니다.");
    expect(receiptPushMessage("denied")).toContain("브라우저 설정에서 알림을 허용해 주세요.");
    expect(receiptPushMessage("unsupported")).toBe("이 브라우저에서는 충전 알림을 보내 드릴 수 없습니다.");
    expect(receiptPushMessage("failed")).toBe("알림 등록에 실패했습니다. 잠시 후 다시 시도해 주세요.");
  });

  it("checks a setting the way the writer does", () => {
    expect(validSetting(THRESHOLD, 10000, 0)).toBeNull();
    expect(validSetting(SCHEDULED, 5000, 28)).toBeNull();
    expect(validSetting(SCHEDULED, 5000, 29)).toContain("1일부터 28일");
    expect(validSetting(THRESHOLD, 5050, 1000)).toContain("100원 단위");
    expect(validSetting("weekly", 5000, 1)).toContain("방식");
  });

  it("words the window's fail redirect", () => {
    expect(failMessage("PAY_PROCESS_CANCELED", "x")).toBe("카드 등록을 취소했습니다.");
    expect(failMessage("REJECT_CARD_COMPANY", "카드사 거절")).toBe("카드사 거절");
  });

  it("exchanges the window's authKey once and drops it from the address", async () => {
    const r = (await clientLoader({ request: new Request("http://store.test/payment/auto?customerKey=cus_1&authKey=bln_1") })) as Response;
    expect(calls).toEqual([{ path: "/home/api/v1/wallet/cards", opts: { method: "POST", json: { customerKey: "cus_1", authKey: "bln_1" } } }]);
    expect(r.status).toBe(302);
    expect(r.headers.get("Location")).toBe("/payment/auto?registered=1");
  });

  it("loads the setting, cards and notices", async () => {
    answers["GET /home/api/v1/wallet/auto-payment"] = { auto_payment_info: { is_use: true, type: THRESHOLD, money: 5000, trigger_value: 1000 } };
    answers["GET /home/api/v1/wallet/cards"] = { cards: [{ id: 1, cardCompany: "신한", cardNumber: "4330****", cardType: "신용", createdAt: "" }] };
    answers["GET /home/api/v1/wallet/notices?limit=20"] = { notices: [] };
    const d = (await clientLoader({ request: new Request("http://store.test/payment/auto") })) as { cards: unknown[]; auto: { money: number } };
    expect(d.cards).toHaveLength(1);
    expect(d.auto.money).toBe(5000);
  });

  it("saves a setting, refusing a bad one before sending it", async () => {
    expect(await clientAction({ request: form({ intent: "save", type: SCHEDULED, money: "5000", trigger_value: "31" }) })).toEqual({
      error: "정기 충전일은 1일부터 28일 사이입니다.",
    });
    expect(calls).toHaveLength(0);
    const ok = await clientAction({ request: form({ intent: "save", type: SCHEDULED, money: "5000", trigger_value: "5" }) });
    expect(ok.ok).toContain("매월 5일");
    expect(calls[0]).toEqual({
      path: "/home/api/v1/wallet/auto-payment",
      opts: { method: "PUT", json: { is_use: true, type: SCHEDULED, money: 5000, trigger_value: 5 } },
    });
  });

  it("starts a registration with the store's own return addresses and removes cards", async () => {
    answers["POST /home/api/v1/wallet/cards/registration"] = { clientKey: "ck", customerKey: "cus_1", successUrl: "s", failUrl: "f" };
    const r = await clientAction({ request: form({ intent: "register" }) });
    expect(r.registration?.customerKey).toBe("cus_1");
    expect(calls[0].opts?.json).toEqual({ successUrl: `${window.location.origin}/payment/auto`, failUrl: `${window.location.origin}/payment/auto?result=fail` });
    answers["DELETE /home/api/v1/wallet/cards/7"] = new Error("등록된 카드를 찾을 수 없습니다.");
    expect(await clientAction({ request: form({ intent: "remove", id: "7" }) })).toEqual({ error: "등록된 카드를 찾을 수 없습니다." });
  });
});
