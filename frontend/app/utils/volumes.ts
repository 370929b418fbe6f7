// A long work's volumes beyond its detail. The edge's detail lists every
// volume of a work of at most 1,000 (DETAIL_VOLUMES_MAX); a longer one lists
// its first and newest VOLUME_PAGE and says in prodInfo.volCnt how many there
// are, the rest coming from /products/{pid}/volumes page by page. Everything
// that looks a volume up by number asks here: a volume the detail lists
// costs no request, so works of up to 1,000 volumes behave as they always did.
import { getVolumePage, type Detail, type Vol, type VolumePage } from "~/utils/storeApi";

/** The edge's catalog.DetailVolumesMax: up to this many, the detail lists every volume. */
export const DETAIL_VOLUMES_MAX = 1000;
/** Volumes per page asked of /volumes: the edge's contract.VolumePageSize, so one answer is one page it holds. */
export const VOLUME_PAGE = 100;

/** Asks one page of /volumes (getVolumePage; tests give their own). */
export type PageFetcher = (pid: string, order: "old" | "latest", page: number, size: number, signal?: AbortSignal) => Promise<VolumePage>;

/** trimmed: the detail does not list every volume of the work. */
export const trimmed = (d: Pick<Detail, "prodInfo" | "volList">) => d.prodInfo.volCnt > d.volList.length;

/**
 * pageOf is the page (from 1, order old) of size holding volume no. Volumes
 * are numbered one after another from startVolNo (the edge numbers them so);
 * with no startVolNo the first is 1, as in ceil(no / size).
 */
export function pageOf(no: number, size: number, startVolNo = 1): number {
  return Math.max(1, Math.ceil((no - (startVolNo || 1) + 1) / size));
}

/** mergeVols: the volumes of both lists, each number once (b's copy wins), oldest first. */
export function mergeVols(a: Vol[], b: Vol[]): Vol[] {
  const byNo = new Map<number, Vol>();
  for (const v of a) byNo.set(v.no, v);
  for (const v of b) byNo.set(v.no, v);
  return [...byNo.values()].sort((x, y) => x.no - y.no);
}

/**
 * withVolume answers the detail with volume no in its volList, and with the
 * volumes just before and after it, so the viewer's previous and next episode
 * are known too (a page's first or last volume takes its neighbour page as
 * well). A detail that lists every volume is answered as it is, with no
 * request; so is a number outside the work. The pages come oldest first.
 */
export async function withVolume(detail: Detail, no: number, signal?: AbortSignal, fetchPage: PageFetcher = getVolumePage): Promise<Detail> {
  // An episode sold early (미리보기) is listed apart until its release: the viewer finds it in volList all the same.
  const early = detail.earlyList?.find((v) => v.no === no);
  if (early && !detail.volList.some((v) => v.no === no)) return { ...detail, volList: mergeVols(detail.volList, [early]) };
  if (!trimmed(detail) || !Number.isInteger(no)) return detail;
  const p = detail.prodInfo;
  const first = p.startVolNo || 1;
  const last = p.updateVolNo || first + p.volCnt - 1;
  if (no < first || no > last) return detail;
  const have = new Set(detail.volList.map((v) => v.no));
  const pages = new Set<number>();
  for (const n of [no - 1, no, no + 1]) if (n >= first && n <= last && !have.has(n)) pages.add(pageOf(n, VOLUME_PAGE, first));
  if (pages.size === 0) return detail;
  const got = await Promise.all([...pages].map((pg) => fetchPage(p.pid, "old", pg, VOLUME_PAGE, signal)));
  return { ...detail, volList: got.reduce((vols, a) => mergeVols(vols, a.volList), detail.volList) };
}

/** findVolume: volume no of the work, from the detail when it lists it, else from its page of /volumes. */
export async function findVolume(detail: Detail, no: number, signal?: AbortSignal, fetchPage: PageFetcher = getVolumePage): Promise<Vol | undefined> {
  const own = detail.volList.find((v) => v.no === no) ?? detail.earlyList?.find((v) => v.no === no);
  if (own || !trimmed(detail)) return own;
  return (await withVolume(detail, no, signal, fetchPage)).volList.find((v) => v.no === no);
}
