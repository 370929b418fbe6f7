import { useEffect, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { app, appHandles } from "~/utils/bridge";
import { pageTitle } from "~/utils/meta";
import { firstChargeBonus } from "~/components/detail/money";
import { bonusBanners, currentDevice, shownMoney } from "~/utils/device";
import { API, getEvents, idemKey, type EventT } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { isSafeReturn } from "~/utils/user";
import { applyWallet, loadSideInfo, useUser, type WalletBalances } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";
import * as w from "~/components/product/wallet.css";

export const meta = () => [{ title: pageTitle("블루머니 충전") }];

export const AMOUNTS = [1000, 3000, 5000, 10000, 30000, 50000];

/** Only local paths are followed after a charge (never another origin). */
export function safeReturn(v: string | null): string | null {
  return isSafeReturn(v) ? v : null;
}

type Charge = {
  orderId: string;
  amount: number;
  status: string;
  /** The sandbox's checkout page, standing in for the gateway's payment widget. */
  checkoutUrl?: string;
  /** What the widget is opened with (new orders). */
  clientKey?: string;
  orderName?: string;
  successUrl?: string;
  failUrl?: string;
  bonus?: number;
  wallet?: WalletBalances;
};

type TossPayments = (clientKey: string) => {
  requestPayment: (method: string, o: { amount: number; orderId: string; orderName: string; successUrl: string; failUrl: string }) => Promise<void>;
};

/** Opens Toss Payments' widget (its v1 SDK) for an order the writer fixed. */
async function openWidget(c: Charge): Promise<void> {
  const w = window as unknown as { TossPayments?: TossPayments };
  if (!w.TossPayments) {
    await new Promise<void>((resolve, reject) => {
      const s = document.createElement("script");
      s.src = "https://js.tosspayments.com/v1/payment";
      s.onload = () => resolve();
      s.onerror = () => reject(new Error("결제창을 불러오지 못했습니다."));
      document.head.appendChild(s);
    });
  }
  if (!w.TossPayments || !c.clientKey) throw new Error("결제창을 불러오지 못했습니다.");
  await w.TossPayments(c.clientKey).requestPayment("카드", {
    amount: c.amount,
    orderId: c.orderId,
    orderName: c.orderName ?? "블루머니 충전",
    successUrl: c.successUrl ?? window.location.href,
    failUrl: c.failUrl ?? window.location.href,
  });
}

export default function Screen() {
  const shell = useShell();
  const user = useUser();
  const navigate = useNavigate();
  const [sp] = useSearchParams();
  const [firstCharge, setFirstCharge] = useState<EventT | null>(null);
  const [amount, setAmount] = useState(Number(sp.get("need")) > 0 ? AMOUNTS.find((a) => a >= Number(sp.get("need"))) ?? 50000 : 10000);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Charge | null>(null);
  const confirmed = useRef(false);
  const ret = safeReturn(sp.get("return"));
  const freeCoin = appHandles("goFreeCoin");

  useEffect(() => {
    getEvents("/events/firstcharge").then((e) => setFirstCharge(e.events[0] ?? null), () => {});
  }, []);
  // The balance and the bonus come from the one side info every screen shows
  // (the writer's answer, updated by each money call), never a copy of its own.
  useEffect(() => {
    if (user.isLogin) void loadSideInfo();
  }, [user.isLogin]);
  const channel = currentDevice().channel;
  const money = shownMoney(channel, user.side);
  const known = user.isLogin && user.side.shownMoney !== null;
  // What the writer will grant on this charge, shown before the member pays.
  const bonus = known && user.side.firstBill.valid ? firstChargeBonus(amount, user.side.firstChargeBonusPct) : 0;
  // The event's promise shows where the bonus is still to be had (never in the iOS app).
  const promise = firstCharge && bonusBanners(channel) && (!user.isLogin || !known || user.side.firstBill.valid);

  // Back from the payment gateway: confirm the payment once.
  useEffect(() => {
    const paymentKey = sp.get("paymentKey");
    const orderId = sp.get("orderId");
    const amt = Number(sp.get("amount"));
    if (sp.get("result") === "fail") {
      // The widget's fail redirect: code, message, orderId. The buyer's own
      // cancel reads as such; any other reason is the gateway's words.
      const code = sp.get("code");
      shell.toast(!code || code === "PAY_PROCESS_CANCELED" ? "결제가 취소되었습니다." : sp.get("message") || "결제에 실패했습니다.");
      return;
    }
    if (!paymentKey || !orderId || !amt || confirmed.current) return;
    confirmed.current = true;
    http<Charge>(`${API}/charge/confirm`, { method: "POST", json: { orderId, paymentKey, amount: amt }, headers: { "Idempotency-Key": `confirm-${orderId}` } })
      .then((c) => {
        setDone(c);
        applyWallet(c.wallet);
        shell.toast(`${won(c.amount)} 충전되었습니다.`);
        if (ret) setTimeout(() => navigate(ret, { replace: true }), 800);
      })
      .catch((e) => shell.toast((e as Error).message || "충전을 확인하지 못했습니다."));
  }, [sp, shell, navigate, ret]);

  const charge = async () => {
    if (!shell.requireMember()) return;
    setBusy(true);
    try {
      // The gateway brings the reader back to the seed's address (the edge serves it).
      const back = new URL("/payment/recharge.asp", window.location.origin);
      if (ret) back.searchParams.set("return", ret);
      const fail = new URL(back);
      fail.searchParams.set("result", "fail");
      const c = await http<Charge>(`${API}/charge/requests`, {
        method: "POST",
        json: { amount, successUrl: back.toString(), failUrl: fail.toString() },
        headers: { "Idempotency-Key": idemKey() },
      });
      if (c.checkoutUrl) window.location.assign(c.checkoutUrl);
      else await openWidget(c);
    } catch (e) {
      shell.toast((e as Error).message || "충전을 시작하지 못했습니다.");
      setBusy(false);
    }
  };

  return (
    <section aria-label="블루머니 충전" className={p.page}>
      <TitleBar title="블루머니 충전" />
      {promise && firstCharge && (
        <div className={p.eventText}>
          <span className={`${p.chip} ${p.chipAccent}`}>첫 충전 이벤트</span>
          <p className={p.eventBody}>{firstCharge.body}</p>
        </div>
      )}
      <div className={s.form}>
        <p className={w.chargeNote}>
          보유 {money.label} <strong data-testid="balance">{known ? won(money.amount) : "-"}</strong>
        </p>
        {bonus > 0 && (
          <p className={w.chargeNote} data-testid="first-charge-bonus">
            첫 충전 보너스 <strong>+{won(bonus)}</strong> (충전 금액의 {user.side.firstChargeBonusPct}%, 마일리지로 지급)
          </p>
        )}
        {done && (
          <p role="status" className={w.chargeStatus}>
            {won(done.amount)} 충전 완료{done.bonus ? ` (보너스 ${won(done.bonus)})` : ""}
          </p>
        )}
        <div role="radiogroup" aria-label="충전 금액" className={w.amounts}>
          {AMOUNTS.map((a) => (
            <button
              key={a}
              type="button"
              role="radio"
              aria-checked={a === amount}
              className={a === amount ? `${p.tab} ${p.tabActive} ${w.amountOption}` : `${p.tab} ${w.amountOption}`}
              onClick={() => setAmount(a)}
            >
              {won(a)}
            </button>
          ))}
        </div>
        <button type="button" className={s.button} onClick={charge} disabled={busy}>
          {won(amount)} 충전하기
        </button>
        {freeCoin && (
          // The free-coin station (offers, ads) is the app's own screen; the web has none.
          <button type="button" className={`${p.tab} ${w.amountOption}`} onClick={() => app.goFreeCoin()}>
            무료 코인 받기
          </button>
        )}
        <Link to="/payment/auto" className={`${p.tab} ${w.amountOption}`}>
          자동 충전 설정
        </Link>
        <p className={w.fineprint}>충전한 블루머니는 웹툰, 만화, 소설 구매와 대여에 쓸 수 있습니다. 미사용 금액은 결제일로부터 7일 안에 환불할 수 있습니다.</p>
      </div>
    </section>
  );
}
