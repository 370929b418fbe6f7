// The volumes tab: the count, the order switch, buy/rent all, and every
// volume with what the member holds of it.
import { useState } from "react";
import { volumeThumb } from "~/components/viewer/media";
import { getVolumes, type Detail, type SalesStatus, type Vol } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { setVolOrder, volOrder, type VolOrder } from "~/utils/prefs";
import { entitlement } from "./unlock";
import * as s from "./detail.css";

/**
 * useVolumeOrder keeps the list's order and the volumes in it; it lives in the
 * detail, not the tab, so the order chosen stays while the reader switches tabs.
 */
export function useVolumeOrder(detail: Detail) {
  const p = detail.prodInfo;
  const [order, setOrder] = useState<VolOrder>(() => volOrder(p.isSpecialPriceSet));
  const [vols, setVols] = useState<Vol[]>(() => (order === "latest" ? [...detail.volList].reverse() : detail.volList));
  const changeOrder = async (o: VolOrder) => {
    setOrder(o);
    setVolOrder(o);
    const a = await getVolumes(p.pid, o).catch(() => null);
    setVols(a ? a.volList : o === "latest" ? [...detail.volList].reverse() : detail.volList);
  };
  return { order, vols, changeOrder };
}

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
  const { order, vols, changeOrder } = volumes;

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
    </div>
  );
}
