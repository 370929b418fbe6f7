import { useEffect, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { isHttpError } from "~/utils/http";
import { won } from "~/utils/format";
import { applyWallet, useUser } from "~/utils/userStore";
import { afterPurchase, buyJumpingPass, kstDateTime, loadPasses, type Passes } from "./jumpingPass";
import { ensureMoney, offerCharge } from "./money";
import * as d from "./detail.css";
import * as s from "./jumpingPass.css";

/**
 * The jumping pass on sale: price and term, the passes the member holds, and
 * the purchase (login first, a confirmation, the balance check with the
 * charge path when short, as for volumes on the detail page).
 * anyPid is a work on the page: the writer reports passes with a work's coupons.
 */
export function JumpingPassBuy({ price, days, anyPid }: { price: number; days: number; anyPid?: string }) {
  const shell = useShell();
  const user = useUser();
  const navigate = useNavigate();
  const here = useLocation().pathname;
  const [passes, setPasses] = useState<Passes | null>(null);
  const [bought, setBought] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!user.isLogin) return setPasses(null);
    let live = true;
    void loadPasses(anyPid).then((p) => live && setPasses(p));
    return () => {
      live = false;
    };
  }, [user.isLogin, anyPid]);

  if (!(price > 0 && days > 0)) return null;

  const buy = async () => {
    if (!shell.requireMember()) return;
    if (busy) return;
    setBusy(true);
    const deps = { shell, navigate };
    try {
      if (!(await ensureMoney(deps, { price, title: "점핑패스 1장", note: `구매한 때부터 ${days}일 동안 쓸 수 있습니다.`, returnTo: here }))) return;
      let answer;
      try {
        answer = await buyJumpingPass();
      } catch (e) {
        // The balance moved since the check (another tab, another device): the same charge path.
        if (isHttpError(e) && e.status === 402 && !(await offerCharge(deps, price, here))) return;
        shell.toast(isHttpError(e) && e.status === 404 ? "지금은 점핑패스를 판매하지 않습니다." : (e as Error).message || "구매하지 못했습니다.");
        return;
      }
      setPasses((await loadPasses(anyPid)) ?? afterPurchase(passes, answer));
      setBought(true);
      applyWallet(answer.wallet);
      shell.toast("점핑패스를 구매했습니다.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={s.box} aria-label="점핑패스 구매" role="group" data-testid="jp-buy">
      <p className={s.offer}>
        <span>점핑패스 1장</span>
        <strong className={s.price} data-testid="jp-price">
          {won(price)}
        </strong>
        <span className={s.term} data-testid="jp-term">
          구매 후 {days}일 동안 사용
        </span>
      </p>
      {passes && (passes.count > 0 || bought) && (
        <div className={s.owned} role="status" data-testid="jp-owned">
          {bought && <strong>구매 완료 · </strong>}
          보유 점핑패스 <strong data-testid="jp-count">{passes.count}장</strong>
          {passes.expires.length > 0 && (
            <ul className={s.dates} aria-label="점핑패스 만료일">
              {passes.expires.map((x, i) => (
                <li key={`${x}-${i}`} data-testid="jp-expiry">
                  {kstDateTime(x)}까지
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <button type="button" className={`${d.primary} ${s.buy}`} onClick={buy} disabled={busy}>
        점핑패스 구매하기
      </button>
    </div>
  );
}
