// A work's detail page: the hero, the action row, the three tabs (information,
// volumes, reviews), the bottom bar and the unlock sheet. What each part does
// lives in its own hook or component; this file puts them together.
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { viewerHref } from "~/components/viewer/nav";
import { currentDevice, shownMoney } from "~/utils/device";
import { detailState, type Detail as DetailT } from "~/utils/storeApi";
import { benefitLine, countdown } from "~/utils/format";
import { detailHint, saveDetailHint } from "~/utils/prefs";
import { useUser } from "~/utils/userStore";
import { DetailActions } from "./DetailActions";
import { DetailHero } from "./DetailHero";
import { DetailInfo } from "./DetailInfo";
import { mainButton } from "./mainButton";
import { Reviews } from "./Reviews";
import { UndoBar } from "./UndoBar";
import { UnlockSheet } from "./UnlockSheet";
import { useDetailPlace } from "./useDetailPlace";
import { useMemberStatus } from "./useMemberStatus";
import { useUnlock } from "./useUnlock";
import { useZzim } from "./useZzim";
import { useVolume } from "./useVolume";
import { useVolumeOrder } from "./useVolumeOrder";
import { VolumeList } from "./VolumeList";
import * as s from "./detail.css";

type Tab = "I" | "V" | "R";
const TABS: { key: Tab; label: string }[] = [
  { key: "I", label: "작품 정보" },
  { key: "V", label: "회차" },
  { key: "R", label: "리뷰" },
];
const TAB_KEYS = TABS.map((t) => t.key);

export function Detail({ detail }: { detail: DetailT }) {
  const p = detail.prodInfo;
  const user = useUser();
  const navigate = useNavigate();
  const [sp, setSp] = useSearchParams();
  const named = TABS.find((t) => t.key === sp.get("tab"))?.key ?? null;
  const tab: Tab = named ?? "I";
  // The volume last opened from this work is marked in the list.
  const [hint] = useState(() => detailHint(p.pid));
  const root = useDetailPlace(p.pid, tab, named, TAB_KEYS, sp, setSp);
  const state = detailState(detail.header.code);
  // Service or payment off (201/202/203): nothing is sold, so no purchase is offered (seed §4).
  const selling = state === "ok";
  const member = { isLogin: user.isLogin, uid: user.authInfo?.uid ?? "", adultLevel: user.adultLevel };
  const { status, coupons, now, waitLeft, refresh } = useMemberStatus(p.pid, member);
  const zzim = useZzim(p.pid, p.section, member);
  const volumes = useVolumeOrder(detail);
  const sales = detail.salesInfo;

  const openViewer = (no: number) => {
    saveDetailHint(p.pid, no);
    navigate(viewerHref(p.pid, no));
  };
  const unlock = useUnlock(detail, state, { status, coupons, now, refresh }, openViewer);
  const { sheet } = unlock;

  const main = mainButton(status?.recentViewVol, detail.recentViewVol, p.unit);
  const mainVol = useVolume(detail, main?.no);
  const benefits = benefitLine({
    freeCoupon: !!coupons?.WCPInfo || (detail.prodInfo as { waitForFree?: boolean }).waitForFree,
    freeVolCnt: sales?.buy.freeVolCnt,
    cashbackRate: sales?.buy.cashbackRate,
    discountRate: sales?.buy.discountRate,
    limitedRental: !!sales?.rental.term && sales.rental.available && !sales.buy.available,
  });
  const showTab = (t: Tab) => {
    const n = new URLSearchParams(sp);
    n.set("tab", t);
    setSp(n, { replace: true, preventScrollReset: true });
  };

  return (
    <article ref={root} aria-label={p.title} data-testid="detail">
      <DetailHero detail={detail} benefits={benefits} />

      {state !== "ok" && (
        <p className={s.notice({ tone: "warn" })} role="alert" data-testid="state-banner">
          {state === "paymentOff" ? "지금은 결제가 중지된 작품입니다. 무료 회차와 보유한 회차만 볼 수 있습니다." : "서비스가 중지된 작품입니다. 전체 보기를 할 수 없습니다."}
        </p>
      )}

      <DetailActions prod={p} uid={member.uid} status={status} zzimOn={zzim.zzimOn} onZzim={zzim.toggleWork} />

      {coupons?.WCPInfo && (
        <p className={s.notice({ tone: "info" })} data-testid="wff">
          <strong>기다리면 무료</strong> ·{" "}
          {waitLeft > 0 ? <>다음 이용권까지 {countdown(waitLeft)}</> : <>지금 1화 무료로 볼 수 있어요</>}
          {coupons.RCPInfo.count - coupons.RCPInfo.usedCnt > 0 && <> · 열람 쿠폰 {coupons.RCPInfo.count - coupons.RCPInfo.usedCnt}장</>}
          {coupons.PCPInfo.jumpingCount > 0 && <> · 점핑패스 {coupons.PCPInfo.jumpingCount}장</>}
        </p>
      )}

      <div className={s.tabs} role="tablist" aria-label="작품 메뉴">
        {TABS.map((t) => (
          <button key={t.key} type="button" role="tab" aria-selected={tab === t.key} className={s.tab({ on: tab === t.key })} onClick={() => showTab(t.key)}>
            {t.label}
            {t.key === "V" ? ` ${p.volCnt}` : t.key === "R" && detail.metric ? ` ${detail.metric.reviewCount}` : ""}
          </button>
        ))}
      </div>

      {tab === "I" && <DetailInfo detail={detail} authorZzim={zzim.authorZzim} onAuthor={zzim.toggleAuthor} />}
      {tab === "V" && <VolumeList detail={detail} volumes={volumes} status={status} now={now} hint={hint} selling={selling} onTap={unlock.tapVol} onBuyAll={unlock.buyAll} />}
      {tab === "R" && <Reviews pid={p.pid} info={detail.reviewInfo} />}

      <div className={s.bottom}>
        {main && mainVol && (
          <button type="button" className={s.primary} onClick={() => unlock.tapVol(mainVol)} data-testid={main.continues ? "continue" : "read-first"}>
            {main.label}
          </button>
        )}
        {selling && sales?.isBuy && (
          <button type="button" className={s.secondary} onClick={() => unlock.buyAll("B")}>
            전체 소장
          </button>
        )}
      </div>

      {sheet && (
        <UnlockSheet
          vol={sheet}
          title={p.title}
          options={selling ? unlock.optionsFor(sheet) : []}
          balance={user.isLogin ? { ...shownMoney(currentDevice().channel, user.side), mileage: user.side.blueMileage } : null}
          waitLeft={waitLeft}
          onChoose={(o) => unlock.choose(sheet, o)}
          onPreview={() => unlock.preview(sheet)}
          onClose={() => void unlock.closeSheet()}
        />
      )}
      {unlock.pending && <UndoBar pending={unlock.pending} />}
    </article>
  );
}
