import { useEffect, useState } from "react";
import { Link } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, getWallet, type Wallet } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { useUser } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";
import * as w from "~/components/product/wallet.css";
import * as c from "~/components/product/csForm.css";

export const meta = () => [{ title: pageTitle("블루머니 내역") }];

type Row = { id: number; kind?: string; money?: string; amount?: number; delta?: number; balance?: number; memo?: string; reason?: string; ref?: string; createdAt: string };

const LABELS: Record<string, string> = {
  charge_cancel: "충전 취소",
  first_charge_bonus: "첫 충전 보너스",
  join_bonus: "가입 보너스",
  purchase: "소장 구매",
  rental: "대여",
  jumping_pass: "점핑패스 구매",
  store_purchase: "앱 결제 충전",
  store_refund: "앱 결제 환불",
  store_refund_reversed: "앱 결제 환불 취소",
};

/**
 * ledgerLabel names a ledger row (writer/money reasons) in the member's
 * words. A charge's ref names its order: automatic top-ups are "at_" orders,
 * scheduled ones "sch_" (writer/money topup.go), so the member tells them
 * from charges they made.
 */
export function ledgerLabel(reason: string | undefined, ref: string | undefined): string {
  if (reason === "charge") {
    if (ref?.startsWith("charge:at_")) return "자동 충전";
    if (ref?.startsWith("charge:sch_")) return "정기 충전";
    return "블루머니 충전";
  }
  return (reason && LABELS[reason]) || "기타";
}

/** Blue income: the member's balance and the money ledger, newest first. */
export default function Screen() {
  const user = useUser();
  const [wallet, setWallet] = useState<Wallet | null>(null);
  const [rows, setRows] = useState<Row[] | null>(null);
  useEffect(() => {
    if (!user.isLogin) return;
    getWallet().then(setWallet, () => {});
    http<{ list: Row[] }>(`${API}/wallet/ledger`, { query: { limit: 50 } }).then((a) => setRows(a.list), () => setRows([]));
  }, [user.isLogin]);
  return (
    <section aria-label="블루머니 내역" className={p.page}>
      <TitleBar title="블루머니 내역" />
      {!user.isLogin ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다. <Link to={`/nuxgin?url=${encodeURIComponent("/blueincome")}`}>로그인</Link>
        </p>
      ) : (
        <>
          <div className={s.form}>
            <p className={w.balance}>{wallet ? won(wallet.shownAmount ?? wallet.bluemoney) : "-"}</p>
            <p className={w.mileage}>마일리지 {wallet ? won(wallet.blueMileage) : "-"}</p>
            <Link to="/payment/recharge.asp" className={`${s.button} ${c.centered}`}>
              충전하기
            </Link>
          </div>
          <ul className={s.list} aria-label="사용 내역">
            {rows?.length === 0 && <li className={s.text}>내역이 없습니다.</li>}
            {rows?.map((r) => {
              const amt = r.delta ?? r.amount ?? 0;
              return (
                <li key={r.id} className={`${s.item} ${w.ledgerRow}`} data-testid="ledger-row">
                  <span>
                    {r.memo || ledgerLabel(r.reason ?? r.kind, r.ref)}
                    <span className={s.date}>{new Date(r.createdAt).toLocaleDateString("ko-KR")}</span>
                  </span>
                  <strong className={w.ledgerAmount({ gain: amt >= 0 })}>
                    {amt >= 0 ? "+" : "-"}
                    {won(Math.abs(amt))}
                  </strong>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
