// Zzim and alarms through the seed's user-info calls (§7). Failures are
// swallowed: the seed says zzim failures stay silent.
import { http } from "~/utils/api";
import type { Http } from "~/utils/http";
import { USER_INFO } from "./storeApi";

export const ZZIM_ADDED = "찜 한 작품에 추가 되었습니다.";
export const ZZIM_REMOVED = "찜 한 작품에서 삭제 되었습니다.";
export const COPIED = "클립보드에 복사되었습니다.";

/** The section names the zzim-add call takes for works. */
export function zzimSection(section: string): string {
  switch (section) {
    case "EB":
      return "소설";
    case "CM":
      return "만화";
    default:
      return "웹툰";
  }
}

export type ZzimType = "prod" | "author";

/** addZzim answers the new entry's idx, or null on any failure. */
export async function addZzim(uid: string, type: ZzimType, target: string, section?: string, h: Http = http): Promise<number | null> {
  try {
    const a = await h<{ idx: number }>(`${USER_INFO}zzim-add`, {
      method: "POST",
      json: { uid, zzim_type: type, pid: target, ...(type === "prod" && section ? { section: zzimSection(section) } : {}) },
    });
    return a.idx;
  } catch {
    return null;
  }
}

export async function removeZzim(uid: string, type: ZzimType, idx: number, h: Http = http): Promise<boolean> {
  try {
    await h(`${USER_INFO}zzim-del`, { method: "POST", json: { uid, zzim_type: type, idxs: String(idx) } });
    return true;
  } catch {
    return false;
  }
}

/** Who asks for a zzim list (seed §7 zzim-list payload); the writer decides by the session and the X-Channel header. */
export type ZzimAudience = { adultLevel: number; channel: string };

// One request in flight per list: a newer call for the same list (type and
// section) cancels the older one (seed §7), while the work list and the
// author list of one detail page load side by side.
const inFlight = new Map<string, AbortController>();

/**
 * listZzim answers target -> idx (empty on a failure, which stays silent);
 * a newer call for the same list cancels the one in flight (seed §7), which
 * then answers null: nothing to show, the newer call will answer.
 */
export async function listZzim(uid: string, type: ZzimType, who: ZzimAudience, h: Http = http, section = "all"): Promise<Map<string, number> | null> {
  const key = `${type}/${section}`;
  inFlight.get(key)?.abort();
  const ctl = new AbortController();
  inFlight.set(key, ctl);
  try {
    const a = await h<{ zzimList: { id: number; pid: string }[] }>(`${USER_INFO}zzim-list`, {
      method: "POST",
      json: { uid, zzim_type: type, adultLevel: who.adultLevel, channel: who.channel, section },
      signal: ctl.signal,
    });
    return new Map(a.zzimList.map((z) => [z.pid, z.id]));
  } catch {
    return ctl.signal.aborted ? null : new Map();
  } finally {
    if (inFlight.get(key) === ctl) inFlight.delete(key);
  }
}

export async function setAlarm(uid: string, pid: string, on: boolean, h: Http = http): Promise<boolean | null> {
  try {
    const a = await h<{ isAlarm: boolean }>(`${USER_INFO}alarm-set`, { method: "POST", json: { uid, pid, isAlarm: on ? "Y" : "N" } });
    return a.isAlarm;
  } catch {
    return null;
  }
}
