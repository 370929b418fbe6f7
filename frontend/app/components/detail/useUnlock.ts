// The unlock flow of one work: tapping a volume opens it or the unlock sheet;
// a choice there (or "buy all") checks membership, the work's state and the
// balance, then commits after the undo window.
import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { sectionPath } from "~/utils/layout";
import { purchase, useCoupon, detailState, type BuyType, type CouponInfo, type CouponKind, type Detail, type SalesStatus, type Vol } from "~/utils/storeApi";
import { quickView } from "~/utils/prefs";
import { applyWallet } from "~/utils/userStore";
import { previewLoginFirst, viewerHref } from "~/components/viewer/nav";
import { currentDevice } from "~/utils/device";
import { ensureMoney as spendMoney } from "./money";
import { canRead, unlockOptions, type UnlockOption } from "./unlock";
import { useUndo } from "./useUndo";

/** The unlock sheet's id on the modal stack. */
const UNLOCK_SHEET = "unlock";

type DetailState = ReturnType<typeof detailState>;
type Member = { status: SalesStatus | null; coupons: CouponInfo | null; now: number; refresh: () => Promise<void> };

export function useUnlock(detail: Detail, state: DetailState, member: Member, openViewer: (no: number) => void) {
  const p = detail.prodInfo;
  const sales = detail.salesInfo;
  const { status, coupons, now, refresh } = member;
  const shell = useShell();
  const navigate = useNavigate();
  const { pending, withUndo } = useUndo();
  const [sheet, setSheet] = useState<Vol | null>(null);
  const allNos = useMemo(() => detail.volList.map((v) => v.no).sort((a, b) => a - b), [detail.volList]);

  /** Money: confirm, check the balance (charge path when short), then commit after the undo window. */
  const ensureMoney = (price: number, what: string) =>
    spendMoney({ shell, navigate }, { price, title: what, returnTo: `/${sectionPath(p.section)}/detail/${p.pid}?tab=V` });

  // The unlock sheet is on the modal stack: Back closes it and leaves the page
  // (seed §4). What it starts waits until its history entry is gone, so a
  // navigation or a popup begins from the page's own entry.
  const openSheet = (v: Vol) => {
    setSheet(v);
    shell.openModal(UNLOCK_SHEET, () => setSheet(null));
  };
  const closeSheet = () => {
    setSheet(null);
    return shell.closeModal(UNLOCK_SHEET);
  };

  const stateRefusal = () => shell.toast(state === "paymentOff" ? "지금은 결제할 수 없는 작품입니다." : "서비스가 중지된 작품입니다.");

  const choose = async (v: Vol, o: UnlockOption) => {
    await closeSheet();
    if (o.kind === "free" || o.kind === "owned" || o.kind === "rented") return openViewer(v.no);
    if (!shell.requireMember()) return;
    if (state !== "ok") return stateRefusal();
    const money = o.kind === "rent" || o.kind === "buy";
    if (money && !(await ensureMoney(o.price ?? 0, `${v.title} ${o.label}`))) return;
    await withUndo(`${v.title}을 ${o.label}(으)로 엽니다`, async () => {
      try {
        if (money || o.kind === "ticket") {
          const bt: BuyType = o.kind === "rent" ? "R" : o.kind === "buy" ? "B" : "T";
          applyWallet((await purchase(p.pid, bt, [v.no])).wallet);
        } else {
          await useCoupon(p.pid, v.no, o.kind as CouponKind);
        }
        await refresh();
        if (quickView()) openViewer(v.no);
        else shell.toast(`${v.title}을 열었습니다.`);
      } catch (e) {
        shell.toast((e as Error).message || "처리하지 못했습니다.");
        void refresh();
      }
    });
  };

  const buyAll = async (bt: "B" | "R") => {
    if (!shell.requireMember()) return;
    if (state !== "ok") return stateRefusal();
    const left = bt === "B" ? (status?.buyLeftPrice ?? sales?.buy.leftPrice ?? 0) : (status?.rentLeftPrice ?? sales?.rental.leftPrice ?? 0);
    const cnt = bt === "B" ? (status?.buyLeftCount ?? sales?.buy.leftCount ?? 0) : (status?.rentLeftCount ?? sales?.rental.leftCount ?? 0);
    if (cnt <= 0) return shell.toast(bt === "B" ? "이미 모든 회차를 소장했습니다." : "대여할 회차가 없습니다.");
    if (!(await ensureMoney(left, `${cnt}개 회차 전체 ${bt === "B" ? "소장" : "대여"}`))) return;
    await withUndo(`${cnt}개 회차를 ${bt === "B" ? "소장" : "대여"}합니다`, async () => {
      try {
        applyWallet((await purchase(p.pid, bt, "all")).wallet);
        await refresh();
        shell.toast(`${cnt}개 회차를 ${bt === "B" ? "소장" : "대여"}했습니다.`);
      } catch (e) {
        shell.toast((e as Error).message || "처리하지 못했습니다.");
      }
    });
  };

  const optionsFor = (v: Vol) =>
    unlockOptions({ vol: v, status, coupons, allNos, isRental: !!sales?.isRental, isBuy: !!sales?.isBuy, isTicket: !!sales?.isTicket, tickets: coupons?.ticketCount ?? 0, jumpingWork: !!p.jumpingPass, now });

  const tapVol = (v: Vol) => {
    const o = optionsFor(v);
    if (canRead(o)) return openViewer(v.no);
    if (state === "serviceOff") return shell.toast("서비스가 중지된 작품입니다.");
    openSheet(v);
  };

  const preview = async (v: Vol) => {
    await closeSheet();
    // A preview in an app below 6.0.0 needs login (seed §5); login comes back to the preview.
    if (previewLoginFirst(currentDevice(), v) && !shell.requireMember(viewerHref(p.pid, v.no))) return;
    openViewer(v.no);
  };

  return { sheet, pending, optionsFor, tapVol, choose, buyAll, preview, closeSheet };
}
