// 오프라인 저장 in 내 서재: the works this member saved for offline reading on
// this device, one row per work with its saved episodes and the one to read
// next. Made from the device alone (the saved list, the reading places this
// device keeps), so it opens with the network cut: it is the list a reader
// on a plane looks for.
import { loadPlace } from "~/components/viewer/place";
import { userReady } from "~/utils/userStore";
import { isExpired, readSaved, type SavedVolume } from "./savedIndex";
import { loadSaved } from "./savedVolumes";

/** The offline shelf's page size: the writer's shelves' (writer/member/library.go). */
export const OFFLINE_PAGE_SIZE = 20;

/** What the shelf needs of a reading place (components/viewer/place.ts Place). */
export type ShelfPlace = { no: number; at: number };

export type OfflineWork = {
  pid: string;
  title: string;
  /** the saved episodes, in episode order */
  vols: SavedVolume[];
  /** when this device last read the work (ms), null when never */
  lastReadAt: number | null;
  /** when an episode of it was last saved (ms) */
  savedAt: number;
  /** the saved episode to read next; null when the reader is past every saved one */
  next: SavedVolume | null;
  /** the next one continues where the reader stopped (not a new episode) */
  resume: boolean;
};

export type OfflineSort = "read" | "update";

/**
 * nextSaved picks the saved episode to read next: the one the reader
 * stopped in, else the first saved after it; with no place, the first
 * saved. vols are in episode order.
 */
export function nextSaved(vols: SavedVolume[], place: ShelfPlace | null): { next: SavedVolume | null; resume: boolean } {
  if (!place) return { next: vols[0] ?? null, resume: false };
  const here = vols.find((v) => v.no === place.no);
  if (here) return { next: here, resume: true };
  return { next: vols.find((v) => v.no > place.no) ?? null, resume: false };
}

/**
 * offlineShelf groups uid's saved volumes (rentals that ended left out) by
 * work and orders them: by last read on this device (works never read after,
 * newest saved first) or by when they were saved; then one page of them.
 */
export function offlineShelf(
  saved: SavedVolume[],
  uid: string,
  opts: { now: number; place: (pid: string) => ShelfPlace | null; sort: OfflineSort; page: number; size?: number },
): { list: OfflineWork[]; curPage: number; pageCount: number; totalCount: number } {
  const byWork = new Map<string, SavedVolume[]>();
  for (const v of saved) {
    if (v.uid !== uid || isExpired(v, opts.now)) continue;
    const l = byWork.get(v.pid);
    if (l) l.push(v);
    else byWork.set(v.pid, [v]);
  }
  const works: OfflineWork[] = [];
  for (const [pid, vols] of byWork) {
    vols.sort((a, b) => a.no - b.no);
    const place = opts.place(pid);
    const savedAt = Math.max(...vols.map((v) => v.savedAt));
    works.push({ pid, title: vols[vols.length - 1].title, vols, lastReadAt: place?.at || null, savedAt, ...nextSaved(vols, place) });
  }
  const bySaved = (a: OfflineWork, b: OfflineWork) => b.savedAt - a.savedAt || a.pid.localeCompare(b.pid);
  works.sort(opts.sort === "read" ? (a, b) => (b.lastReadAt ?? -1) - (a.lastReadAt ?? -1) || bySaved(a, b) : bySaved);
  const size = opts.size ?? OFFLINE_PAGE_SIZE;
  const pageCount = Math.max(1, Math.ceil(works.length / size));
  const curPage = Math.min(Math.max(1, opts.page), pageCount);
  return { list: works.slice((curPage - 1) * size, curPage * size), curPage, pageCount, totalCount: works.length };
}

/** nextText names the next saved episode, in the library's words (utils/library.ts nextLabel). */
export function nextText(w: Pick<OfflineWork, "next" | "resume" | "lastReadAt">, unit: string): string {
  if (!w.next) return "저장한 회차를 모두 읽었어요";
  const n = `${w.next.no}${unit}`;
  if (w.resume) return `${n} 이어보기`;
  return w.lastReadAt ? `다음 ${n} 보기` : `${n}부터 보기`;
}

/** One row as the shelf shows it: the work's look comes from the answers saved with its episodes. */
export type OfflineRow = OfflineWork & { section: string; unit: string; thumbUrl: string };
export type OfflineShelfAnswer = { list: OfflineRow[]; curPage: number; pageCount: number; totalCount: number; login: boolean };

/**
 * loadOfflineShelf is the shelf for the member signed in on this device
 * (nothing for a visitor: logging out empties the saved copies). Every read
 * is local (storage and Cache Storage), so it answers offline too.
 */
export async function loadOfflineShelf(sort: OfflineSort, page: number): Promise<OfflineShelfAnswer> {
  const uid = (await userReady()).authInfo?.uid;
  if (!uid) return { list: [], curPage: 1, pageCount: 1, totalCount: 0, login: false };
  const s = offlineShelf(readSaved(), uid, {
    now: Date.now(),
    place: (pid) => {
      const p = loadPlace(pid);
      return p ? { no: p.no, at: p.at } : null;
    },
    sort,
    page,
  });
  const list = await Promise.all(
    s.list.map(async (w): Promise<OfflineRow> => {
      const info = (await loadSaved(w.vols[0]).catch(() => null))?.detail.prodInfo;
      const section = info?.section ?? "";
      return { ...w, section, unit: info?.unit || (section === "WT" ? "화" : "권"), thumbUrl: info?.thumbUrl ?? "" };
    }),
  );
  return { ...s, list, login: true };
}
