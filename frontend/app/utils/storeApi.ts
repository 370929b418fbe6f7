// The edge's and the writer's answers that the screens read, and the calls
// that make them. Every call goes through the shell's HTTP helper.
import { http } from "~/utils/api";
import type { Http } from "~/utils/http";
import type { Author, ProductItem } from "~/utils/product";
import type { RecentViewVol } from "~/components/detail/mainButton";

export type Paging = { curPage: number; pageCount: number; totalCount: number; size: number };
export type ListAnswer = { header: { code: number; message: string }; title?: string; list: ProductItem[]; paging: Paging };
export type Ranked = { rank: number; delta: number; item: ProductItem };
export type RankingAnswer = ListAnswer extends never ? never : { category: string; tab: string; source: string; list: Ranked[]; paging: Paging };
export type EventT = {
  eid: number;
  kind: string;
  title: string;
  body: string;
  bannerUrl: string;
  section?: string;
  writer?: string;
  coupons: number;
  startAt: string;
  endAt: string;
  isPreview: boolean;
  list: ProductItem[];
};
export type Genre = { integratedGenreId: string; key: string; name: string };
export type GenresAnswer = { genres: Genre[]; tabs: { key: string; name: string }[] };

export const API = "/home/api/v1";

type Q = Record<string, string | number | undefined>;
export const getList = (path: string, query: Q = {}, signal?: AbortSignal, h: Http = http) =>
  h<ListAnswer>(`${API}${path}`, { query, signal });

export const getEvents = (path: string, signal?: AbortSignal) => http<{ kind: string; events: EventT[] }>(`${API}${path}`, { signal });
export const getEvent = (path: string, signal?: AbortSignal) => http<{ event: EventT }>(`${API}${path}`, { signal });

let genresCache: Promise<GenresAnswer> | null = null;
/** The integrated genres change with a deploy, not per request: one fetch per page load. */
export function getGenres(signal?: AbortSignal): Promise<GenresAnswer> {
  if (!genresCache) {
    genresCache = http<GenresAnswer>(`${API}/genres`, { signal }).catch((e) => {
      genresCache = null;
      throw e;
    });
  }
  return genresCache;
}

// ---- product detail (edge) ----

export type SalesPart = {
  /** the seed's buy type of the part: B buy, R rental */
  type?: "B" | "R";
  /** last day (KST) the discount or cashback holds, "" when none */
  date?: string;
  available: boolean;
  priceMin: number;
  priceMax: number;
  totalPrice: number;
  totalCount: number;
  leftPrice: number;
  leftCount: number;
  discountRate: number;
  cashbackRate: number;
  term?: number;
  freeVolCnt: number;
};
export type Vol = {
  no: number;
  title: string;
  releaseAt: string;
  isFree: boolean;
  isPreView: boolean;
  pages: number;
  previewPages: number;
  contentBase: string;
  /** base of the processed content's current version; absent while the volume has none */
  mediaBase?: string;
  rentalInfo: { isAuth: boolean; authEndDate?: string; price: number; price_org: number };
  buyInfo: { isAuth: boolean; price: number; price_org: number };
  /** sold early before its release (미리보기): bought at buyInfo.price, never rented (earlyList only) */
  isEarly?: boolean;
};
export type ProdInfo = {
  section: string;
  waitForFree?: boolean;
  jumpingPass?: boolean;
  pid: string;
  title: string;
  subTitle: string;
  thumbUrl: string;
  thumbWideUrl: string;
  genreCode: string;
  genreId?: string;
  category1: string;
  category2: string;
  summary: string;
  provider: string;
  authors: Author[];
  age: number;
  isAdult: boolean;
  updateState: string;
  flagEnd: string;
  updateCycle: string;
  weekdays?: number[];
  isOriginal: boolean;
  isMonopoly: boolean;
  isShortStory: boolean;
  /** a comic read right to left (most licensed manga); absent: left to right */
  rightToLeft?: boolean;
  viewCnt: number;
  unit: string;
  zzimId: number;
  isAlarm: boolean;
  startVolNo: number;
  updateVolNo: number;
  volCnt: number;
  isSpecialPriceSet: boolean;
  isPackage: boolean;
  specialPriceSetMainSubdir: string;
  specialPriceSetProdCnt: number;
  regularVolCnt: number;
  nextReleaseAt?: string;
  /** the seed's enumerations by its names (§3) */
  contentType?: "WEBTOON" | "COMIC" | "NOVEL";
  releaseTiming?: "NONE" | "IMMEDIATE" | "TODAY";
  freeType?: "NONE" | "WAIT_FOR_FREE" | "GIFT" | "JUMPING_PASS";
  exclusivity?: "NONE" | "ORIGINAL" | "MONOPOLY";
  viewKind?: "CONTENT" | "BLIND";
};
export type Detail = {
  header: { code: number; message: string };
  adultVerificationNeeded: boolean;
  prodInfo: ProdInfo;
  volList: Vol[];
  /** volumes sold early (미리보기), in release order; absent from older edges */
  earlyList?: Vol[];
  salesInfo?: {
    buy: SalesPart;
    rental: SalesPart;
    isBuy: boolean;
    isRental: boolean;
    isTicket: boolean;
    lastAuthType: string;
    ticketExp: string;
  };
  reviewInfo?: { count: number; isDisplay: boolean; point: number; pointSum: number };
  keywordTag: { id?: number; name: string }[];
  notices: { id: number; title: string; body: string; postedAt: string }[];
  events: { eid: number; kind: string; title: string; bannerUrl: string; endAt: string }[];
  trailers: { title: string; imageUrl: string; videoUrl?: string }[];
  related: { code: string; title: string; list: ProductItem[] }[];
  authorWorks: ProductItem[];
  authorZzims?: { authorId: number; authorName: string; zzimId: number }[];
  metric?: { viewCnt: number; zzimCount: number; reviewCount: number };
  /** the first volume, the same for everyone (the member's comes with getStatus) */
  recentViewVol?: RecentViewVol | null;
};

/** Detail header codes (seed §4): 201 and 203 service off; 202 payment off. */
export function detailState(code: number): "ok" | "serviceOff" | "paymentOff" {
  if (code === 201 || code === 203) return "serviceOff";
  if (code === 202) return "paymentOff";
  return "ok";
}

export const getDetail = (pid: string, signal?: AbortSignal) =>
  http<Detail>(`${API}/products/${encodeURIComponent(pid)}`, { signal, expect: [201, 202, 203] });

export const getVolumes = (pid: string, order: "old" | "latest", signal?: AbortSignal) =>
  http<{ volList: Vol[]; order: string }>(`${API}/products/${encodeURIComponent(pid)}/volumes`, { query: { order }, signal });

/** One page of a work's released volumes (the edge's VolumesOf): size at most 1000. */
export type VolumePage = { pid: string; order: "old" | "latest"; volList: Vol[]; paging: Paging };
export const getVolumePage = (pid: string, order: "old" | "latest", page: number, size: number, signal?: AbortSignal) =>
  http<VolumePage>(`${API}/products/${encodeURIComponent(pid)}/volumes`, { query: { order, page, size }, signal });

export type Review = {
  id: number;
  userName: string;
  body: string;
  point: number;
  vol?: number;
  isBuyerReview: boolean;
  likeCnt: number;
  isMyLike: boolean;
  isBlock: boolean;
  isReport: boolean;
  isSpoiler: boolean;
  createdAt: string;
  isMine?: boolean;
};
export const getReviews = (pid: string, buyer: boolean, sort: "like" | "recent", page = 1, signal?: AbortSignal) =>
  http<{ reviewList: Review[]; paging: Paging }>(`${API}/products/${encodeURIComponent(pid)}/reviews`, {
    query: { buyer: buyer ? "Y" : "N", sort, page, size: 10 },
    signal,
  });

// ---- member calls (writer, through the edge) ----

export type SalesStatus = {
  isBuy: boolean;
  isRental: boolean;
  lastAuthType?: string;
  buyLeftPrice: number;
  buyLeftCount: number;
  rentLeftPrice: number;
  rentLeftCount: number;
  volList: { no: number; rentalInfo: { isAuth: boolean; authEndDate?: string; price: number; price_org: number }; buyInfo: { isAuth: boolean; price: number; price_org: number } }[];
  /** the member's recentViewVol: the volume they were reading (isContinue) */
  recentViewVol?: RecentViewVol | null;
  /** the member's new-volume alarm for the work (the edge's detail says false for everyone) */
  isAlarm?: boolean;
  /** volumes sold early now and any unreleased one the member bought early (isAuth) */
  earlyList?: { no: number; releaseAt: string; price: number; isAuth: boolean }[];
};
export const getStatus = (pid: string) => http<SalesStatus>(`${API}/purchases/status`, { query: { pid } });

export type CouponInfo = {
  WCPInfo?: { recycle: number; isAvailable: boolean; waitTime: number; endDate?: string; excludeNewest: number };
  RCPInfo: { count: number; usedCnt: number; usableCnt?: number; availableTime?: string; isRecv: boolean; id?: number; earliestExpireDate?: string };
  PCPInfo: { passCount: number; jumpingCount: number; jcpId?: number; jumpingExpireDates: string[] };
  /** tickets that can rent this work now: its own and its section's */
  ticketCount?: number;
};
export const getCoupons = (pid: string) => http<CouponInfo>(`${API}/coupons`, { query: { pid } });

export type Wallet = { bluemoney: number; appmoney_a: number; appmoney_i: number; blueMileage: number; shownMoney: string; shownAmount: number; comicTickets: number; novelTickets: number };
export const getWallet = () => http<Wallet>(`${API}/wallet`);

export const idemKey = () => {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
};

export type BuyType = "B" | "R" | "T";
export const purchase = (pid: string, buyType: BuyType, vols: number[] | "all", key = idemKey()) =>
  http<{ vols: number[]; amount: number; wallet: Wallet; authEndDate?: string }>(`${API}/purchases`, {
    method: "POST",
    json: vols === "all" ? { pid, buyType, all: true } : { pid, buyType, vols },
    headers: { "Idempotency-Key": key },
  });

export type CouponKind = "wff" | "read" | "pass" | "jumping";
export const useCoupon = (pid: string, vol: number, kind: CouponKind, key = idemKey()) =>
  http<{ authEndDate: string; waitTime?: number }>(`${API}/coupons/use`, {
    method: "POST",
    json: { pid, vol, kind },
    headers: { "Idempotency-Key": key },
  });

export type DownloadAuth = {
  pid: string;
  vol: number;
  isAuth: boolean;
  authType?: string;
  authEndDate?: string;
  token?: string;
  contentBase: string;
  pages: number;
  previewPages: number;
};
export const downloadAuth = (pid: string, vol: number, signal?: AbortSignal) =>
  http<DownloadAuth>("/protocol/api/v-1/product/download-auth.asp", { method: "POST", form: { pid, vol }, signal });

export const USER_INFO = "/protocol/appapi/mb/user/info/";
