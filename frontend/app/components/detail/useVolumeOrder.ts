// The volumes tab's order and the volumes in it. A work the detail lists
// whole is shown from the detail (the other order from /volumes, as ever); a
// long one (volCnt over the detail's 1,000) shows its first page in either
// order from the detail, which lists the first and the newest pages, and
// "더보기" brings the next page of /volumes in the order chosen.
import { useRef, useState } from "react";
import { getVolumePage, getVolumes, type Detail, type Vol } from "~/utils/storeApi";
import { setVolOrder, volOrder, type VolOrder } from "~/utils/prefs";
import { mergeVols, trimmed, VOLUME_PAGE, type PageFetcher } from "~/utils/volumes";

/** firstPage: what a long work's list starts with in order o, from its detail. */
function firstPage(detail: Detail, o: VolOrder): Vol[] {
  return o === "latest" ? detail.volList.slice(-VOLUME_PAGE).reverse() : detail.volList.slice(0, VOLUME_PAGE);
}

/** appendVols: vols and the page after them in order o, each volume once. */
function appendVols(vols: Vol[], page: Vol[], o: VolOrder): Vol[] {
  const merged = mergeVols(vols, page);
  return o === "latest" ? merged.reverse() : merged;
}

/**
 * useVolumeOrder keeps the list's order and the volumes in it; it lives in the
 * detail, not the tab, so the order chosen stays while the reader switches tabs.
 * more is null when every volume is shown; failed says the last page did not come.
 */
export function useVolumeOrder(detail: Detail, fetchPage: PageFetcher = getVolumePage) {
  const p = detail.prodInfo;
  const long = trimmed(detail);
  const [order, setOrder] = useState<VolOrder>(() => volOrder(p.isSpecialPriceSet));
  const [vols, setVols] = useState<Vol[]>(() => (long ? firstPage(detail, order) : order === "latest" ? [...detail.volList].reverse() : detail.volList));
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  // A page asked in one order is dropped when the order changed meanwhile.
  const asked = useRef(0);

  const changeOrder = async (o: VolOrder) => {
    setOrder(o);
    setVolOrder(o);
    asked.current++;
    setLoading(false);
    setFailed(false);
    if (long) return setVols(firstPage(detail, o));
    const a = await getVolumes(p.pid, o).catch(() => null);
    setVols(a ? a.volList : o === "latest" ? [...detail.volList].reverse() : detail.volList);
  };

  const loadMore = async () => {
    if (loading) return;
    const ticket = ++asked.current;
    setLoading(true);
    setFailed(false);
    // Pages are VOLUME_PAGE long and the list holds whole pages: the next is one past them.
    const next = Math.floor(vols.length / VOLUME_PAGE) + 1;
    const a = await fetchPage(p.pid, order, next, VOLUME_PAGE).catch(() => null);
    if (ticket !== asked.current) return;
    setLoading(false);
    if (!a) return setFailed(true);
    setVols((cur) => appendVols(cur, a.volList, order));
  };

  const more = long && vols.length < p.volCnt ? loadMore : null;
  return { order, vols, changeOrder, more, loading, failed };
}
