// A long work for tests: its detail as the edge answers it (whole up to 1,000
// volumes, else the first and newest 100 with volCnt) and its /volumes pages.
import { vi } from "vitest";
import type { Detail, ProdInfo, Vol, VolumePage } from "~/utils/storeApi";
import type { PageFetcher } from "~/utils/volumes";

export const vol = (no: number): Vol => ({
  no,
  title: `${no}화`,
  releaseAt: "2026-01-01T00:00:00Z",
  isFree: false,
  isPreView: true,
  pages: 5,
  previewPages: 2,
  contentBase: `/content/P1/${no}`,
  rentalInfo: { isAuth: false, price: 100, price_org: 100 },
  buyInfo: { isAuth: false, price: 200, price_org: 200 },
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => vol(from + i));

/** detailOf: a work of count volumes as the edge lists it: whole up to 1,000, else the first and newest 100. */
export function detailOf(count: number): Detail {
  const volList = count <= 1000 ? range(1, count) : [...range(1, 100), ...range(count - 99, count)];
  const prodInfo = { pid: "P1", section: "WT", title: "긴 작품", unit: "화", volCnt: count, startVolNo: 1, updateVolNo: count, isSpecialPriceSet: false } as ProdInfo;
  return { header: { code: 200, message: "" }, adultVerificationNeeded: false, prodInfo, volList } as Detail;
}

/** pagesOf: the edge's /volumes of a work of count volumes, recording what is asked. */
export function pagesOf(count: number) {
  const calls: { order: string; page: number; size: number }[] = [];
  const fetchPage: PageFetcher = async (pid, order, page, size) => {
    calls.push({ order, page, size });
    const all = order === "old" ? range(1, count) : range(1, count).reverse();
    const list = all.slice((page - 1) * size, page * size);
    return { pid, order, volList: list, paging: { curPage: page, size, totalCount: count, pageCount: Math.ceil(count / size) } } satisfies VolumePage;
  };
  return { calls, fetchPage: vi.fn(fetchPage) };
}
