// The volumes tab: the count, the order switch, buy/rent all, and every
// volume with what the member holds of it (a long work's page by page).
import { volumeThumb } from "~/components/viewer/media";
import type { Detail, SalesStatus, Vol } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { entitlement } from "./unlock";
import { EARLY_BADGE, earlyReleaseLabel, earlyState, earlyVols } from "./early";
import type { useVolumeOrder } from "./useVolumeOrder";
import * as s from "./detail.css";

type Props = {
  detail: Detail;
  volumes: ReturnType<typeof useVolumeOrder>;
  status: SalesStatus | null;
  now: number;
  /** The volume last opened from this page (session key detailHint). */
  hint: number | null;
  selling: boolean;
  onTap: (v: Vol) => void;
  onBuyAll: (bt: "B" | "R") => void;
};

export function VolumeList({ detail, volumes, status, now, hint, selling, onTap, onBuyAll }: Props) {
  const p = detail.prodInfo;
  const sales = detail.salesInfo;
  const { order, vols, changeOrder, more, loading, failed } = volumes;
  const early = earlyVols(detail.earlyList, vols);

  return (
    <div>
      <div className={s.volHead}>
        <span className={s.volCount}>
          총 {p.volCnt}
          {p.unit}
        </span>
        {!p.isSpecialPriceSet && (
          <button type="button" className={s.small} onClick={() => changeOrder(order === "old" ? "latest" : "old")} data-testid="vol-order">
            {order === "old" ? "첫 화부터" : "최신 화부터"}
          </button>
        )}
        {selling && sales?.isRental && (
          <button type="button" className={s.small} onClick={() => onBuyAll("R")}>
            전체 대여
          </button>
        )}
        {selling && sales?.isBuy && (
          <button type="button" className={s.small} onClick={() => onBuyAll("B")}>
            전체 소장
          </button>
        )}
      </div>
      {early.length > 0 && (
        <ul className={s.vols} aria-label="미리보기 회차" data-testid="early-list">
          {early.map((v) => {
            const st = earlyState(v, status);
            return (
              <li key={v.no}>
                <button type="button" className={s.vol} onClick={() => onTap(v)} data-testid="early-vol" data-no={v.no}>
                  <div className={s.volThumb}>
                    <img src={p.thumbUrl} alt="" loading="lazy" width={72} height={45} />
                  </div>
                  <div className={s.volBody}>
                    <p className={s.volTitle}>
                      <span className={s.earlyBadge}>{EARLY_BADGE}</span> {v.title}
                    </p>
                    <p className={s.volDate}>{earlyReleaseLabel(v)}</p>
                  </div>
                  <span className={s.volState({ kind: st.owned ? "owned" : "priced" })} data-testid="early-state">
                    {st.label}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <ul className={s.vols} aria-label="회차 목록">
        {vols.map((v) => {
          const e = v.isFree ? "free" : entitlement(v.no, status, now);
          return (
            <li key={v.no}>
              <button type="button" className={s.vol} onClick={() => onTap(v)} data-testid="vol" data-no={v.no} aria-current={v.no === hint ? "true" : undefined}>
                <div className={s.volThumb}>
                  <img src={volumeThumb(v, p.thumbUrl)} alt="" loading="lazy" width={72} height={45} />
                </div>
                <div className={s.volBody}>
                  <p className={s.volTitle}>{v.title}</p>
                  <p className={s.volDate}>{new Date(v.releaseAt).toLocaleDateString("ko-KR")}</p>
                </div>
                <span className={s.volState({ kind: e === "free" ? "free" : e ? "owned" : "priced" })} data-testid="vol-state">
                  {e === "free" ? "무료" : e === "owned" ? "소장" : e === "rented" ? "대여중" : v.rentalInfo.price > 0 ? `대여 ${won(v.rentalInfo.price)}` : won(v.buyInfo.price)}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {failed && (
        <p className={s.notice({ tone: "warn" })} role="alert">
          회차를 불러오지 못했습니다. 다시 시도해 주세요.
        </p>
      )}
      {more && (
        <div className={s.volMore}>
          <button type="button" className={`${s.small} ${s.more}`} onClick={() => void more()} disabled={loading} data-testid="vol-more">
            {loading ? "불러오는 중…" : `회차 더보기 (${vols.length}/${p.volCnt})`}
          </button>
        </div>
      )}
    </div>
  );
}
