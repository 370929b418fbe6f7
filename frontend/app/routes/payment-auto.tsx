import { useEffect } from "react";
import { Link, redirect, useFetcher, useLoaderData } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { askPermission, browserPushEnv, subscribeDevice, type PushOutcome } from "~/utils/webPush";
import * as cs from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";
import * as s from "./payment-auto.css";

export const meta = () => [{ title: pageTitle("자동 충전 설정") }];

export const THRESHOLD = "bluemoney-auto-payment";
export const SCHEDULED = "bluemoney-scheduled-payment";

export type AutoPayment = { is_use: boolean; type: string; money: number; trigger_value: number; paused_reason?: string };
export type Card = { id: number; cardCompany: string; cardNumber: string; cardType: string; createdAt: string };
export type Notice = { id: number; kind: "topup_receipt" | "topup_paused"; title: string; body: string; orderId: string; amount: number; createdAt: string };
type Registration = { clientKey: string; customerKey: string; successUrl: string; failUrl: string; windowUrl?: string };
type Data = { login: boolean; auto: AutoPayment | null; cards: Card[]; notices: Notice[]; failed: string | null };
export type ActionResult = { ok?: string; error?: string; registration?: Registration };

const PAGE = "/payment/auto";

/** The window's fail redirect (code, message) as the member's words. */
export function failMessage(code: string | null, message: string | null): string {
  return !code || code === "PAY_PROCESS_CANCELED" ? "카드 등록을 취소했습니다." : message || "카드를 등록하지 못했습니다.";
}

/** Checks the form of a setting before it is sent (the writer checks again). */
export function validSetting(type: string, money: number, trigger: number): string | null {
  if (type !== THRESHOLD && type !== SCHEDULED) return "자동 충전 방식을 골라 주세요.";
  if (!Number.isInteger(money) || money < 1000 || money > 1_000_000 || money % 100 !== 0) return "충전 금액은 1,000원부터 1,000,000원까지 100원 단위입니다.";
  if (type === SCHEDULED && !(Number.isInteger(trigger) && trigger >= 1 && trigger <= 28)) return "정기 충전일은 1일부터 28일 사이입니다.";
  if (type === THRESHOLD && !(Number.isInteger(trigger) && trigger >= 0 && trigger <= 1_000_000)) return "기준 잔액은 0원부터 1,000,000원 사이입니다.";
  return null;
}

export async function clientLoader({ request }: { request: Request }): Promise<Data | Response> {
  const url = new URL(request.url);
  const authKey = url.searchParams.get("authKey");
  const customerKey = url.searchParams.get("customerKey");
  const base: Data = { login: true, auto: null, cards: [], notices: [], failed: null };
  if (url.searchParams.get("result") === "fail") base.failed = failMessage(url.searchParams.get("code"), url.searchParams.get("message"));
  try {
    if (authKey && customerKey) {
      // Back from the card-registration window: the writer exchanges the
      // authKey for the billing key; the address loses the one-use key.
      await http(`${API}/wallet/cards`, { method: "POST", json: { customerKey, authKey } });
      return redirect(`${PAGE}?registered=1`);
    }
    const [auto, cards, notices] = await Promise.all([
      http<{ auto_payment_info: AutoPayment }>(`${API}/wallet/auto-payment`),
      http<{ cards: Card[] }>(`${API}/wallet/cards`),
      http<{ notices: Notice[] }>(`${API}/wallet/notices?limit=20`),
    ]);
    return { ...base, auto: auto.auto_payment_info, cards: cards.cards, notices: notices.notices };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return { ...base, login: false };
    if (authKey) return { ...base, failed: (e as Error).message || "카드를 등록하지 못했습니다." };
    throw e;
  }
}

export async function clientAction({ request }: { request: Request }): Promise<ActionResult> {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  try {
    switch (intent) {
      case "register": {
        const origin = window.location.origin;
        const registration = await http<Registration>(`${API}/wallet/cards/registration`, {
          method: "POST",
          json: { successUrl: `${origin}${PAGE}`, failUrl: `${origin}${PAGE}?result=fail` },
        });
        return { registration };
      }
      case "remove":
        await http(`${API}/wallet/cards/${Number(form.get("id"))}`, { method: "DELETE" });
        return { ok: "카드를 삭제했습니다." };
      case "off":
        await http(`${API}/wallet/auto-payment`, { method: "PUT", json: { is_use: false } });
        return { ok: "자동 충전을 껐습니다." };
      case "save": {
        const type = String(form.get("type"));
        const money = Number(form.get("money"));
        const trigger = Number(form.get("trigger_value"));
        const bad = validSetting(type, money, trigger);
        if (bad) return { error: bad };
        await http(`${API}/wallet/auto-payment`, { method: "PUT", json: { is_use: true, type, money, trigger_value: trigger } });
        return { ok: type === SCHEDULED ? `매월 ${trigger}일 ${won(money)} 정기 충전을 켰습니다.` : `잔액이 ${won(trigger)}보다 적어지면 ${won(money)} 자동 충전합니다.` };
      }
    }
    return { error: "알 수 없는 요청입니다." };
  } catch (e) {
    return { error: (e as Error).message || "요청을 처리하지 못했습니다." };
  }
}

type TossBilling = (clientKey: string) => {
  requestBillingAuth: (method: string, o: { customerKey: string; successUrl: string; failUrl: string }) => Promise<void>;
};

/** Opens Toss Payments' card-registration window (its v1 SDK). */
async function openBillingWindow(r: Registration): Promise<void> {
  const w = window as unknown as { TossPayments?: TossBilling };
  if (!w.TossPayments) {
    await new Promise<void>((resolve, reject) => {
      const el = document.createElement("script");
      el.src = "https://js.tosspayments.com/v1/payment";
      el.onload = () => resolve();
      el.onerror = () => reject(new Error("카드 등록창을 불러오지 못했습니다."));
      document.head.appendChild(el);
    });
  }
  if (!w.TossPayments) throw new Error("카드 등록창을 불러오지 못했습니다.");
  await w.TossPayments(r.clientKey).requestBillingAuth("카드", { customerKey: r.customerKey, successUrl: r.successUrl, failUrl: r.failUrl });
}

/** The toast after asking for receipts on this device (writer/push rings top-up notices). */
export function receiptPushMessage(o: PushOutcome): string {
  switch (o) {
    case "subscribed":
      return "충전 영수증과 자동 충전 알림을 이 기기로 보내 드립니다.";
    case "denied":
      return "알림이 차단되어 있어 충전 알림을 보내 드릴 수 없습니다. 브라우저 설정에서 알림을 허용해 주세요.";
    case "unsupported":
      return "이 브라우저에서는 충전 알림을 보내 드릴 수 없습니다.";
    default:
      return "알림 등록에 실패했습니다. 잠시 후 다시 시도해 주세요.";
  }
}

function useResultToast(result: ActionResult | undefined) {
  const shell = useShell();
  useEffect(() => {
    if (result?.ok) shell.toast(result.ok);
    if (result?.error) shell.toast(result.error);
  }, [result, shell]);
}

export default function Screen() {
  const data = useLoaderData<typeof clientLoader>() as Data;
  const shell = useShell();
  const register = useFetcher<ActionResult>();
  const setting = useFetcher<ActionResult>();
  const remove = useFetcher<ActionResult>();
  useResultToast(register.data);
  useResultToast(setting.data);
  useResultToast(remove.data);

  useEffect(() => {
    if (data.failed) shell.toast(data.failed);
  }, [data.failed, shell]);
  useEffect(() => {
    const r = register.data?.registration;
    if (!r) return;
    if (r.windowUrl) window.location.assign(r.windowUrl);
    else openBillingWindow(r).catch((e) => shell.toast((e as Error).message));
  }, [register.data, shell]);

  if (!data.login) {
    return (
      <section aria-label="자동 충전 설정" className={p.page}>
        <TitleBar title="자동 충전 설정" />
        <p>로그인하면 자동 충전을 설정할 수 있습니다.</p>
        <button type="button" className={cs.button} onClick={() => shell.requireMember(PAGE)}>
          로그인
        </button>
      </section>
    );
  }
  const pushEnv = browserPushEnv();
  const receiptsHere = () => {
    // The prompt must start inside the click (browsers ask only then).
    const permission = askPermission(pushEnv);
    void subscribeDevice(permission, pushEnv).then((o) => shell.toast(receiptPushMessage(o)));
  };
  const auto = data.auto;
  const kind = auto?.type === SCHEDULED ? SCHEDULED : THRESHOLD;
  return (
    <section aria-label="자동 충전 설정" className={p.page}>
      <TitleBar title="자동 충전 설정" />

      <div className={s.section} aria-label="등록한 카드">
        <h2 className={s.h2}>등록한 카드</h2>
        {data.cards.length === 0 && <p className={s.fineprint}>등록한 카드가 없습니다. 자동 충전에는 카드가 필요합니다.</p>}
        {data.cards.map((c, i) => (
          <div key={c.id} className={s.card} data-testid="card">
            <span>
              {c.cardCompany} {c.cardType} <span className={s.cardNumber}>{c.cardNumber}</span>
              {i === 0 && data.cards.length > 1 ? " (결제 카드)" : ""}
            </span>
            <remove.Form method="post">
              <input type="hidden" name="intent" value="remove" />
              <input type="hidden" name="id" value={c.id} />
              <button type="submit" className={p.tab} aria-label={`${c.cardCompany} ${c.cardNumber} 삭제`}>
                삭제
              </button>
            </remove.Form>
          </div>
        ))}
        <register.Form method="post">
          <input type="hidden" name="intent" value="register" />
          <button type="submit" className={cs.button} disabled={register.state !== "idle"}>
            카드 등록하기
          </button>
        </register.Form>
      </div>

      <setting.Form method="post" className={s.section} aria-label="자동 충전">
        <h2 className={s.h2}>자동 충전 {auto?.is_use ? "사용 중" : "꺼짐"}</h2>
        {auto?.paused_reason && (
          <p className={s.paused} role="alert">
            자동 충전이 멈췄습니다: {auto.paused_reason}
          </p>
        )}
        <fieldset className={s.kinds} aria-label="충전 방식">
          <label className={s.field}>
            <span>
              <input type="radio" name="type" value={THRESHOLD} defaultChecked={kind === THRESHOLD} /> 잔액이 부족할 때
            </span>
          </label>
          <label className={s.field}>
            <span>
              <input type="radio" name="type" value={SCHEDULED} defaultChecked={kind === SCHEDULED} /> 매월 정해진 날
            </span>
          </label>
        </fieldset>
        <label className={s.field}>
          기준 잔액(원) 또는 충전일(1~28일)
          <input className={s.input} name="trigger_value" inputMode="numeric" defaultValue={auto?.trigger_value ?? 1000} required />
        </label>
        <label className={s.field}>
          충전 금액(원)
          <input className={s.input} name="money" inputMode="numeric" defaultValue={auto?.money || 10000} required />
        </label>
        <button type="submit" name="intent" value="save" className={cs.button} disabled={setting.state !== "idle" || data.cards.length === 0}>
          자동 충전 켜기
        </button>
        {auto?.is_use && (
          <button type="submit" name="intent" value="off" className={p.tab} disabled={setting.state !== "idle"}>
            자동 충전 끄기
          </button>
        )}
        <p className={s.fineprint}>
          잔액이 기준보다 적어지면 한 번, 또는 매월 고른 날에 한 번 등록한 카드로 충전합니다. 결제가 거절되면 자동 충전이 멈추고 알려 드립니다.
        </p>
      </setting.Form>

      <div className={s.section} aria-label="충전 알림">
        <h2 className={s.h2}>충전 알림</h2>
        {data.notices.length === 0 && <p className={s.fineprint}>아직 알림이 없습니다.</p>}
        {data.notices.map((n) => (
          <div key={n.id} className={s.notice({ kind: n.kind })} data-testid="notice">
            <strong>{n.title}</strong>
            <span>{n.body}</span>
          </div>
        ))}
        {!pushEnv.device.isApp && (
          <button type="button" className={p.tab} onClick={receiptsHere}>
            이 기기로 충전 알림 받기
          </button>
        )}
        <Link to="/payment/recharge.asp" className={p.tab}>
          직접 충전하기
        </Link>
      </div>
    </section>
  );
}
